// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
import {
  type BoxedFloat,
  isArrayKind,
  isNumberKind,
  kindOf,
  makeFloat,
  makeInteger,
  numberOf,
  numericLikeValue,
  primitiveText,
  rawValue,
  truthy,
} from './template-values.fast.js';

/** `~`, and `+` with a string side: both sides' text joined. */
function concatenated(left: unknown, right: unknown): string {
  return primitiveText(left, 'concatenating a container') + primitiveText(right, 'concatenating a container');
}

function isNumericLike(kind: string): boolean {
  return kind === 'integer' || kind === 'float' || kind === 'boolean';
}

/**
 * The interpreter's `evaluateBinaryExpression` for every operator but `and`, `or`, `==` and `!=`,
 * once both sides are evaluated, checks in the same order.
 */
export function binaryOperation(operator: string, left: unknown, right: unknown): unknown {
  const leftKind = kindOf(left);
  const rightKind = kindOf(right);
  if (leftKind === 'undefined' || rightKind === 'undefined') {
    if (rightKind === 'undefined' && (operator === 'in' || operator === 'not in')) return operator === 'not in';
    throw new Error(`Cannot perform operation ${operator} on undefined values`);
  }
  if (leftKind === 'null' || rightKind === 'null') throw new Error('Cannot perform operation on null values');
  if (operator === '~') return concatenated(left, right);
  if (operator === '**' && isNumericLike(leftKind) && isNumericLike(rightKind)) {
    const a = numericLikeValue(left);
    const b = numericLikeValue(right);
    if (a === 0 && b < 0) throw new Error('0.0 cannot be raised to a negative power');
    const result = a ** b;
    if (!Number.isFinite(result)) throw new Error('Exponentiation result is not a finite real number');
    return leftKind === 'float' || rightKind === 'float' || b < 0 ? makeFloat(result) : makeInteger(result);
  }
  if (isNumberKind(leftKind) && isNumberKind(rightKind)) {
    const a = numberOf(left as number | BoxedFloat);
    const b = numberOf(right as number | BoxedFloat);
    const isFloat = leftKind === 'float' || rightKind === 'float';
    const number = (value: number): unknown => (isFloat ? makeFloat(value) : makeInteger(value));
    switch (operator) {
      case '+':
        return number(a + b);
      case '-':
        return number(a - b);
      case '*':
        return number(a * b);
      case '/':
        return makeFloat(a / b);
      case '//':
        return number(Math.floor(a / b));
      case '%':
        return number(a % b);
      case '<':
        return a < b;
      case '>':
        return a > b;
      case '>=':
        return a >= b;
      case '<=':
        return a <= b;
    }
  } else if (isArrayKind(leftKind) && isArrayKind(rightKind)) {
    if (operator === '+') return (left as unknown[]).concat(right as unknown[]);
  } else if (isArrayKind(rightKind)) {
    if (operator === 'in' || operator === 'not in') {
      const needle = rawValue(left);
      const member = (right as unknown[]).some((item) => rawValue(item) === needle);
      return operator === 'in' ? member : !member;
    }
  }
  if ((leftKind === 'string' || rightKind === 'string') && operator === '+') return concatenated(left, right);
  if (leftKind === 'string' && rightKind === 'string' && (operator === 'in' || operator === 'not in')) {
    const member = (right as string).includes(left as string);
    return operator === 'in' ? member : !member;
  }
  if (leftKind === 'string' && rightKind === 'object' && (operator === 'in' || operator === 'not in')) {
    const member = Object.hasOwn(right as object, left as string);
    return operator === 'in' ? member : !member;
  }
  throw new SyntaxError(`Unknown operator "${operator}" between ${leftKind} and ${rightKind}`);
}

/** The interpreter's `evaluateUnaryExpression`. */
export function unaryOperation(operator: string, argument: unknown): unknown {
  if (operator === 'not') return !truthy(argument);
  if (operator === '+' || operator === '-') {
    const kind = kindOf(argument);
    if (isNumericLike(kind)) {
      const result = (operator === '-' ? -1 : 1) * numericLikeValue(argument);
      return kind === 'float' ? makeFloat(result) : makeInteger(result);
    }
    throw new SyntaxError(`Unknown operator "${operator}" for ${kind}`);
  }
  throw new SyntaxError(`Unknown operator: ${operator}`);
}

// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
import type { Evaluate } from './compiled-closures.fast.js';
import { binaryOperation } from './operators.fast.js';
import { looseEquals, truthy } from './template-values.fast.js';

// Fast paths for two integers (loop indices, lengths); anything else takes the interpreter's checks.
const INTEGER_OPERATIONS: Record<string, (a: number, b: number) => unknown> = {
  '-': (a, b) => a - b,
  '<': (a, b) => a < b,
  '>': (a, b) => a > b,
  '<=': (a, b) => a <= b,
  '>=': (a, b) => a >= b,
};

/** `left operator right`, short-circuiting `and`/`or`, with fast paths for the comparisons chat templates repeat per message. */
export function compileBinary(operator: string, left: Evaluate, right: Evaluate): Evaluate {
  switch (operator) {
    case 'and':
      return (scope) => {
        const value = left(scope);
        return truthy(value) ? right(scope) : value;
      };
    case 'or':
      return (scope) => {
        const value = left(scope);
        return truthy(value) ? value : right(scope);
      };
    case '==':
      return (scope) => {
        const a = left(scope);
        const b = right(scope);
        return typeof a === 'string' && typeof b === 'string' ? a === b : looseEquals(a, b);
      };
    case '!=':
      return (scope) => {
        const a = left(scope);
        const b = right(scope);
        return typeof a === 'string' && typeof b === 'string' ? a !== b : !looseEquals(a, b);
      };
    case '+':
    case '~':
      return (scope) => {
        const a = left(scope);
        const b = right(scope);
        return typeof a === 'string' && typeof b === 'string' ? a + b : binaryOperation(operator, a, b);
      };
  }
  const integers = Object.hasOwn(INTEGER_OPERATIONS, operator) ? INTEGER_OPERATIONS[operator] : undefined;
  if (integers) {
    return (scope) => {
      const a = left(scope);
      const b = right(scope);
      return Number.isSafeInteger(a) && Number.isSafeInteger(b) ? integers(a as number, b as number) : binaryOperation(operator, a, b);
    };
  }
  return (scope) => {
    const a = left(scope);
    return binaryOperation(operator, a, right(scope));
  };
}

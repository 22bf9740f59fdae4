// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
import { kindOf, rawValue } from './template-values.fast.js';

/** A test after `is`, or named by `selectattr`: the operand and, from `selectattr`, its argument. */
export type ValueTest = (operand: unknown, argument?: unknown) => boolean;

function integerOperand(name: string, operand: unknown): number {
  if (kindOf(operand) !== 'integer') throw new Error(`cannot ${name} on ${kindOf(operand)}`);
  return operand as number;
}

function equalTo(operand: unknown, ...rest: unknown[]): boolean {
  // The interpreter reads `b.value`, which fails when the test is given no argument (`x is eq`).
  if (rest.length === 0) throw new TypeError("Cannot read properties of undefined (reading 'value')");
  return rawValue(operand) === rawValue(rest[0]);
}

/** The interpreter's `Environment.TESTS`; a name missing here is an "Unknown test" there too. */
export const VALUE_TESTS: ReadonlyMap<string, ValueTest> = new Map<string, ValueTest>([
  ['boolean', (operand) => typeof operand === 'boolean'],
  ['callable', (operand) => kindOf(operand) === 'function'],
  ['odd', (operand) => integerOperand('odd', operand) % 2 !== 0],
  ['even', (operand) => integerOperand('even', operand) % 2 === 0],
  ['false', (operand) => operand === false],
  ['true', (operand) => operand === true],
  ['none', (operand) => operand === null],
  ['string', (operand) => typeof operand === 'string'],
  ['number', (operand) => kindOf(operand) === 'integer' || kindOf(operand) === 'float'],
  ['integer', (operand) => kindOf(operand) === 'integer'],
  ['iterable', (operand) => kindOf(operand) === 'array' || typeof operand === 'string'],
  ['mapping', (operand) => kindOf(operand) === 'object'],
  ['sequence', (operand) => ['array', 'tuple', 'object', 'string'].includes(kindOf(operand))],
  ['lower', (operand) => typeof operand === 'string' && operand === operand.toLowerCase()],
  ['upper', (operand) => typeof operand === 'string' && operand === operand.toUpperCase()],
  ['defined', (operand) => operand !== undefined],
  ['undefined', (operand) => operand === undefined],
  ['equalto', (operand, ...rest) => equalTo(operand, ...rest)],
  ['eq', (operand, ...rest) => equalTo(operand, ...rest)],
]);

// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
import type { Scope } from './scope.fast.js';
import { unsupported } from './unsupported-construct-error.fast.js';

/**
 * Values of the compiled renderer are plain JS values, not @huggingface/jinja's RuntimeValue
 * wrappers. Each maps to exactly one interpreter type (see `kindOf`):
 *
 * - string → StringValue; boolean → BooleanValue; null → NullValue; undefined → UndefinedValue
 * - number: an integer → IntegerValue, any other number → FloatValue (as `convertToRuntimeValues` does)
 * - `BoxedFloat` → a FloatValue whose value is integral (`1.0`, `4 / 2`), which prints as `1.0`
 * - an array → ArrayValue, or TupleValue when made by a tuple literal (registered in `tuples`)
 * - `Namespace` → NamespaceValue; `TemplateFunction` → FunctionValue
 * - any other object → ObjectValue, read through its own enumerable keys as `Object.entries` does
 */
export type Kind = 'string' | 'integer' | 'float' | 'boolean' | 'null' | 'undefined' | 'array' | 'tuple' | 'object' | 'namespace' | 'function';

export class BoxedFloat {
  constructor(readonly value: number) {}
}

export class Namespace {
  constructor(readonly entries: Map<string, unknown>) {}
}

/** Keyword arguments travel apart from positional ones; `undefined` when a call passed none. */
export type Kwargs = Map<string, unknown> | undefined;

/** A callable: a macro, `caller`, or a global such as `namespace`. `scope` is the caller's (macros scope dynamically). */
export class TemplateFunction {
  constructor(
    readonly call: (args: unknown[], kwargs: Kwargs, scope: Scope) => unknown,
    readonly isMacro = false,
  ) {}
}

const tuples = new WeakSet<unknown[]>();

export function makeTuple(items: unknown[]): unknown[] {
  tuples.add(items);
  return items;
}

export function kindOf(value: unknown): Kind {
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
      return Number.isInteger(value) ? 'integer' : 'float';
    case 'boolean':
      return 'boolean';
    case 'undefined':
      return 'undefined';
    case 'object':
      if (value === null) return 'null';
      if (Array.isArray(value)) return tuples.has(value) ? 'tuple' : 'array';
      if (value instanceof BoxedFloat) return 'float';
      if (value instanceof Namespace) return 'namespace';
      if (value instanceof TemplateFunction) return 'function';
      return 'object';
    default:
      return unsupported(`a ${typeof value} value`);
  }
}

/** A float result: integral floats are boxed so they keep printing as floats. */
export function makeFloat(value: number): number | BoxedFloat {
  return Number.isInteger(value) ? new BoxedFloat(value) : value;
}

/** An integer result; the interpreter's IntegerValue can hold NaN or Infinity, which plain numbers cannot say. */
export function makeInteger(value: number): number {
  return Number.isInteger(value) ? value : unsupported('an integer operation without an integer result');
}

/** The RuntimeValue's `.value`, for the interpreter's `===`, `==` and `Set` comparisons. */
export function rawValue(value: unknown): unknown {
  if (value instanceof BoxedFloat) return value.value;
  if (value instanceof Namespace) return value.entries;
  if (value instanceof TemplateFunction) return value.call;
  return value;
}

export function numberOf(value: number | BoxedFloat): number {
  return typeof value === 'number' ? value : value.value;
}

export function isArrayKind(kind: Kind): boolean {
  return kind === 'array' || kind === 'tuple';
}

export function isNumberKind(kind: Kind): boolean {
  return kind === 'integer' || kind === 'float';
}

export function isAttributeContainer(kind: Kind): boolean {
  return kind === 'object' || kind === 'namespace';
}

export function hasOwn(object: object, key: string): boolean {
  return Object.hasOwn(object, key);
}

/** An attribute of a mapping or namespace, and whether it exists (as `Map.has` would say). */
export function ownEntry(container: object, key: string): { found: boolean; value: unknown } {
  if (container instanceof Namespace) return { found: container.entries.has(key), value: container.entries.get(key) };
  return hasOwn(container, key) ? { found: true, value: (container as Record<string, unknown>)[key] } : { found: false, value: undefined };
}

export function entriesOf(container: object): [string, unknown][] {
  return container instanceof Namespace ? Array.from(container.entries) : Object.entries(container);
}

/** The interpreter's `__bool__`. */
export function truthy(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
      return value.length > 0;
    case 'number':
      return value !== 0 && !Number.isNaN(value);
    case 'boolean':
      return value;
    case 'undefined':
      return false;
    case 'object':
      if (value === null) return false;
      if (Array.isArray(value)) return value.length > 0;
      if (value instanceof BoxedFloat) return value.value !== 0;
      if (value instanceof Namespace || value instanceof TemplateFunction) return true;
      return Object.keys(value).length > 0;
    default:
      return unsupported(`a ${typeof value} value`);
  }
}

/** FloatValue's `toString`. */
export function formatFloat(value: number): string {
  if (Object.is(value, -0)) return '-0.0';
  return value % 1 === 0 ? value.toFixed(1) : value.toString();
}

/** RuntimeValue's `toString`: how a value is written into the output. */
export function display(value: unknown): string {
  switch (kindOf(value)) {
    case 'string':
      return value as string;
    case 'integer':
      return String(value);
    case 'float':
      return formatFloat(numberOf(value as number | BoxedFloat));
    case 'boolean':
      return value ? 'true' : 'false';
    case 'array':
    case 'tuple':
    case 'object':
    case 'namespace':
      return toJson(value, {}, 0, false);
    default:
      return unsupported('printing a function, none or undefined value');
  }
}

/**
 * A scalar's JS text, `value.toString()` as the interpreter's `~`, string `+` and `join` use it.
 * A container would print JS's "[object Map]" or commas there, which is not reproduced: `use`
 * names the construct in the refusal.
 */
export function primitiveText(value: unknown, use: string): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
      return String(value);
    default:
      if (value instanceof BoxedFloat) return String(value.value);
      return unsupported(use);
  }
}

/** The text `{{ value }}` writes: none and undefined write nothing. */
export function outputText(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === null || value === undefined ? '' : display(value);
}

/** The interpreter's `left.value == right.value`, refused where JS would stringify a container. */
export function looseEquals(left: unknown, right: unknown): boolean {
  const a = rawValue(left);
  const b = rawValue(right);
  const aObject = typeof a === 'object' || typeof a === 'function';
  const bObject = typeof b === 'object' || typeof b === 'function';
  if (aObject !== bObject && a != null && b != null) unsupported('comparing a container with a primitive');
  // biome-ignore lint/suspicious/noDoubleEquals: Jinja's `==` on primitives is loose, as its interpreter's is
  return a == b;
}

export interface JsonOptions {
  indent?: number | null;
  ensureAscii?: boolean;
  separators?: [string, string] | null;
  sortKeys?: boolean;
}

const NON_ASCII_CHARS = /[\x7f-\uffff]/g;

function makeAsciiSafe(text: string): string {
  return text.replace(NON_ASCII_CHARS, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The interpreter's `toJSON`, separators, indentation and ASCII escaping included. */
export function toJson(input: unknown, options: JsonOptions, depth: number, convertUndefinedToNull = true): string {
  const { indent = null, ensureAscii = false, separators = null, sortKeys = false } = options;
  let itemSeparator: string;
  let keySeparator: string;
  if (separators) {
    [itemSeparator, keySeparator] = separators;
  } else if (indent) {
    itemSeparator = ',';
    keySeparator = ': ';
  } else {
    itemSeparator = ', ';
    keySeparator = ': ';
  }
  const kind = kindOf(input);
  switch (kind) {
    case 'null':
      return 'null';
    case 'undefined':
      return convertUndefinedToNull ? 'null' : 'undefined';
    case 'integer':
    case 'float':
    case 'boolean':
      return JSON.stringify(rawValue(input));
    case 'string': {
      const result = JSON.stringify(input);
      return ensureAscii ? makeAsciiSafe(result) : result;
    }
    case 'array':
    case 'object':
    case 'namespace': {
      const indentValue = indent ? ' '.repeat(indent) : '';
      const basePadding = `\n${indentValue.repeat(depth)}`;
      const childrenPadding = basePadding + indentValue;
      if (kind === 'array') {
        const core = (input as unknown[]).map((item) => toJson(item, options, depth + 1, convertUndefinedToNull));
        return indent && core.length > 0
          ? `[${childrenPadding}${core.join(`${itemSeparator}${childrenPadding}`)}${basePadding}]`
          : `[${core.join(itemSeparator)}]`;
      }
      let entries = entriesOf(input as object);
      if (sortKeys) entries = entries.sort(([a], [b]) => a.localeCompare(b));
      const core = entries.map(([key, value]) => {
        let keyText = JSON.stringify(key);
        if (ensureAscii) keyText = makeAsciiSafe(keyText);
        const member = `${keyText}${keySeparator}${toJson(value, options, depth + 1, convertUndefinedToNull)}`;
        return indent ? `${childrenPadding}${member}` : member;
      });
      return indent && core.length > 0 ? `{${core.join(itemSeparator)}${basePadding}}` : `{${core.join(itemSeparator)}}`;
    }
    default:
      // TupleValue and FunctionValue: the interpreter throws "Cannot convert to JSON".
      throw new Error(`Cannot convert to JSON: ${kind}`);
  }
}

function isNumericLike(kind: Kind): boolean {
  return kind === 'integer' || kind === 'float' || kind === 'boolean';
}

export function numericLikeValue(value: unknown): number {
  return typeof value === 'boolean' ? Number(value) : numberOf(value as number | BoxedFloat);
}

/** The interpreter's `compareRuntimeValues` (sort, dictsort). */
export function compareValues(a: unknown, b: unknown, caseSensitive = false): number {
  const aKind = kindOf(a);
  const bKind = kindOf(b);
  if (aKind === 'null' && bKind === 'null') return 0;
  if (aKind === 'null' || bKind === 'null') throw new Error(`Cannot compare ${aKind} with ${bKind}`);
  if (aKind === 'undefined' && bKind === 'undefined') return 0;
  if (aKind === 'undefined' || bKind === 'undefined') throw new Error(`Cannot compare ${aKind} with ${bKind}`);
  if (isNumericLike(aKind) && isNumericLike(bKind)) {
    const x = numericLikeValue(a);
    const y = numericLikeValue(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (aKind !== bKind) throw new Error(`Cannot compare different types: ${aKind} and ${bKind}`);
  if (aKind !== 'string') throw new Error(`Cannot compare type: ${aKind}`);
  let x = a as string;
  let y = b as string;
  if (!caseSensitive) {
    x = x.toLowerCase();
    y = y.toLowerCase();
  }
  return x < y ? -1 : x > y ? 1 : 0;
}

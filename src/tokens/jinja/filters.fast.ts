// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
import { callObjectMethod, callStringMethod, replaceMethod } from './members.fast.js';
import {
  compareValues,
  display,
  isArrayKind,
  isAttributeContainer,
  kindOf,
  makeFloat,
  makeInteger,
  numberOf,
  ownEntry,
  primitiveText,
  rawValue,
  toJson,
  truthy,
  type BoxedFloat,
  type Kind,
  type Kwargs,
} from './template-values.fast.js';
import { unsupported } from './unsupported-construct-error.fast.js';
import { VALUE_TESTS, type ValueTest } from './value-tests.fast.js';

/** One element of `Array.prototype.join` over the interpreter's raw `.value`s (floats already unboxed). */
function joinPart(value: unknown): string {
  return value === null || value === undefined ? '' : primitiveText(value, 'joining containers');
}

function kwarg(kwargs: Map<string, unknown>, name: string, fallback: unknown): unknown {
  return kwargs.has(name) ? kwargs.get(name) : fallback;
}

function argument(args: unknown[], index: number, kwargs: Map<string, unknown>, name: string, fallback: unknown): unknown {
  return index < args.length ? args[index] : kwarg(kwargs, name, fallback);
}

/** The interpreter's `getAttributeValue`: a dotted path through mappings and list indices. */
function attributeValue(item: unknown, path: string): unknown {
  let value = item;
  for (const part of path.split('.')) {
    const kind = kindOf(value);
    if (isAttributeContainer(kind)) {
      value = ownEntry(value as object, part).value;
    } else if (isArrayKind(kind)) {
      const index = parseInt(part, 10);
      const items = value as unknown[];
      if (!Number.isNaN(index) && index >= 0 && index < items.length) value = items[index];
      else return undefined;
    } else {
      return undefined;
    }
  }
  return value;
}

function indentLines(text: string, width: number, first: boolean, blank: boolean): string {
  const indent = ' '.repeat(width);
  return text
    .split('\n')
    .map((line, i) => ((!first && i === 0) || (!blank && line.length === 0) ? line : indent + line))
    .join('\n');
}

function nonEmpty(items: unknown[], name: string): unknown[] {
  // `[]|first` gives the interpreter a raw JS undefined, which later fails in ways not worth copying.
  return items.length > 0 ? items : unsupported(`${name} of an empty list`);
}

/** `value|name`, the interpreter's `applyFilter` for an Identifier filter: the filters each kind of value has. */
export function applyFilter(name: string, operand: unknown): unknown {
  if (name === 'safe') return operand;
  if (name === 'tojson') return toJson(operand, {}, 0);
  const kind = kindOf(operand);
  const filter = Object.hasOwn(FILTERS_BY_KIND, kind) ? FILTERS_BY_KIND[kind] : undefined;
  if (!filter) throw new Error(`Cannot apply filter "${name}" to type: ${kind}`);
  return filter(name, operand, kind);
}

type KindFilter = (name: string, operand: unknown, kind: Kind) => unknown;

function listFilter(name: string, operand: unknown): unknown {
  const items = operand as unknown[];
  switch (name) {
    case 'list':
      return operand;
    case 'first':
      return nonEmpty(items, name)[0];
    case 'last':
      return nonEmpty(items, name)[items.length - 1];
    case 'length':
      return items.length;
    case 'reverse':
      return items.slice().reverse();
    case 'sort':
      return items.slice().sort((a, b) => compareValues(a, b, false));
    case 'join':
      return items.map((item) => joinPart(rawValue(item))).join('');
    case 'string':
      return toJson(operand, {}, 0, false);
    case 'unique':
      return uniqueItems(items);
    default:
      throw new Error(`Unknown ArrayValue filter: ${name}`);
  }
}

/** Each item whose raw value has not appeared before, in order. */
function uniqueItems(items: unknown[]): unknown[] {
  const seen = new Set<unknown>();
  const output: unknown[] = [];
  for (const item of items) {
    const key = rawValue(item);
    if (!seen.has(key)) {
      seen.add(key);
      output.push(item);
    }
  }
  return output;
}

function stringFilter(name: string, operand: unknown): unknown {
  const text = operand as string;
  switch (name) {
    case 'length':
      return text.length;
    case 'upper':
    case 'lower':
    case 'title':
    case 'capitalize':
      return callStringMethod(text, name, [], undefined);
    case 'trim':
      return text.trim();
    case 'indent':
      return indentLines(text, 4, false, false);
    case 'join':
    case 'string':
      return text;
    case 'int': {
      const value = parseInt(text, 10);
      return Number.isNaN(value) ? 0 : value;
    }
    case 'float': {
      const value = parseFloat(text);
      return makeFloat(Number.isNaN(value) ? 0 : value);
    }
    default:
      throw new Error(`Unknown StringValue filter: ${name}`);
  }
}

function numberFilter(name: string, operand: unknown, kind: Kind): unknown {
  const value = numberOf(operand as number | BoxedFloat);
  switch (name) {
    case 'abs':
      return kind === 'integer' ? Math.abs(value) : makeFloat(Math.abs(value));
    case 'int':
      return makeInteger(Math.floor(value));
    case 'float':
      return makeFloat(value);
    case 'string':
      return display(operand);
    default:
      throw new Error(`Unknown NumericValue filter: ${name}`);
  }
}

function objectFilter(name: string, operand: unknown): unknown {
  switch (name) {
    case 'items':
      return Object.entries(operand as object);
    case 'length':
      return Object.keys(operand as object).length;
    case 'get':
    case 'keys':
    case 'values':
    case 'dictsort':
      return callObjectMethod(operand as object, name, [], undefined);
    default:
      throw new Error(`Unknown ObjectValue filter: ${name}`);
  }
}

function booleanFilter(name: string, operand: unknown): unknown {
  switch (name) {
    case 'bool':
      return operand;
    case 'int':
      return operand ? 1 : 0;
    case 'float':
      return makeFloat(operand ? 1 : 0);
    case 'string':
      return operand ? 'true' : 'false';
    default:
      throw new Error(`Unknown BooleanValue filter: ${name}`);
  }
}

const FILTERS_BY_KIND: Partial<Record<Kind, KindFilter>> = {
  array: listFilter,
  tuple: listFilter,
  string: stringFilter,
  integer: numberFilter,
  float: numberFilter,
  object: objectFilter,
  boolean: booleanFilter,
};

function tojsonWithOptions(operand: unknown, kwargs: Map<string, unknown>): string {
  const indent = kwarg(kwargs, 'indent', null);
  if (!(indent === null || kindOf(indent) === 'integer')) throw new Error('If set, indent must be a number');
  const ensureAscii = kwarg(kwargs, 'ensure_ascii', false);
  if (typeof ensureAscii !== 'boolean') throw new Error('If set, ensure_ascii must be a boolean');
  const sortKeys = kwarg(kwargs, 'sort_keys', false);
  if (typeof sortKeys !== 'boolean') throw new Error('If set, sort_keys must be a boolean');
  const separatorsArgument = kwarg(kwargs, 'separators', null);
  let separators: [string, string] | null = null;
  if (isArrayKind(kindOf(separatorsArgument))) {
    const pair = separatorsArgument as unknown[];
    if (pair.length !== 2) throw new Error('separators must be a tuple of two strings');
    const [itemSeparator, keySeparator] = pair;
    if (typeof itemSeparator !== 'string' || typeof keySeparator !== 'string') throw new Error('separators must be a tuple of two strings');
    separators = [itemSeparator, keySeparator];
  } else if (separatorsArgument !== null) {
    throw new Error('If set, separators must be a tuple of two strings');
  }
  return toJson(operand, { indent: indent as number | null, ensureAscii, sortKeys, separators }, 0);
}

function selectAttribute(items: unknown[], select: boolean, args: unknown[], argsAreStringLiterals: boolean, name: string): unknown[] {
  if (items.some((item) => !isAttributeContainer(kindOf(item)))) throw new Error(`\`${name}\` can only be applied to array of objects`);
  if (!argsAreStringLiterals) throw new Error(`arguments of \`${name}\` must be strings`);
  const [attribute, testName] = args as (string | undefined)[];
  let test: ValueTest;
  if (testName !== undefined) {
    const found = VALUE_TESTS.get(testName);
    if (!found) throw new Error(`Unknown test: ${testName}`);
    test = args.length > 2 ? (operand) => found(operand, args[2]) : (operand) => found(operand);
  } else {
    test = truthy;
  }
  return items.filter((item) => {
    const entry = attribute === undefined ? { found: false, value: undefined } : ownEntry(item as object, attribute);
    const result = entry.found ? test(entry.value) : false;
    return select ? result : !result;
  });
}

function sortBy(items: unknown[], args: unknown[], kwargs: Map<string, unknown>): unknown[] {
  const reverse = argument(args, 0, kwargs, 'reverse', false);
  if (typeof reverse !== 'boolean') throw new Error('reverse must be a boolean');
  const caseSensitive = argument(args, 1, kwargs, 'case_sensitive', false);
  if (typeof caseSensitive !== 'boolean') throw new Error('case_sensitive must be a boolean');
  const attribute = argument(args, 2, kwargs, 'attribute', null);
  if (!(attribute === null || typeof attribute === 'string' || kindOf(attribute) === 'integer'))
    throw new Error('attribute must be a string, integer, or null');
  const sortValue = (item: unknown): unknown => (attribute === null ? item : attributeValue(item, String(attribute)));
  return items.slice().sort((a, b) => {
    const result = compareValues(sortValue(a), sortValue(b), caseSensitive);
    return reverse ? -result : result;
  });
}

function mapAttribute(items: unknown[], kwargs: Map<string, unknown>): unknown[] {
  if (!kwargs.has('attribute')) throw new Error('`map` expressions without `attribute` set are not currently supported.');
  const attribute = kwargs.get('attribute');
  if (typeof attribute !== 'string') throw new Error('attribute must be a string');
  const fallback = kwargs.get('default');
  return items.map((item) => {
    if (!isAttributeContainer(kindOf(item))) throw new Error('items in map must be an object');
    const value = attributeValue(item, attribute);
    return value === undefined ? fallback : value;
  });
}

/**
 * `value|name(args)`, the interpreter's `applyFilter` for a CallExpression filter. Arguments are
 * evaluated before the call; where the interpreter would not evaluate them it throws anyway.
 */
export function applyCallFilter(name: string, operand: unknown, args: unknown[], kwargs: Map<string, unknown>, argsAreStringLiterals: boolean): unknown {
  switch (name) {
    case 'tojson':
      return tojsonWithOptions(operand, kwargs);
    case 'join': {
      let parts: unknown[];
      if (typeof operand === 'string') parts = Array.from(operand);
      else if (isArrayKind(kindOf(operand))) parts = (operand as unknown[]).map(rawValue);
      else throw new Error(`Cannot apply filter "${name}" to type: ${kindOf(operand)}`);
      const separator = argument(args, 0, kwargs, 'separator', '');
      if (typeof separator !== 'string') throw new Error('separator must be a string');
      return parts.map(joinPart).join(separator);
    }
    case 'int':
    case 'float': {
      const fallback = argument(args, 0, kwargs, 'default', name === 'int' ? 0 : makeFloat(0));
      const kind = kindOf(operand);
      if (kind === 'string') {
        const value = name === 'int' ? parseInt(operand as string, 10) : parseFloat(operand as string);
        return Number.isNaN(value) ? fallback : name === 'int' ? value : makeFloat(value);
      }
      if (kind === 'integer' || kind === 'float') return operand;
      if (kind === 'boolean') return name === 'int' ? (operand ? 1 : 0) : makeFloat(operand ? 1 : 0);
      throw new Error(`Cannot apply filter "${name}" to type: ${kind}`);
    }
    case 'default': {
      const fallback = args.length > 0 ? args[0] : '';
      const boolean = argument(args, 1, kwargs, 'boolean', false);
      if (typeof boolean !== 'boolean') throw new Error('`default` filter flag must be a boolean');
      return operand === undefined || (boolean && !truthy(operand)) ? fallback : operand;
    }
  }
  const kind = kindOf(operand);
  if (isArrayKind(kind)) {
    const items = operand as unknown[];
    switch (name) {
      case 'sort':
        return sortBy(items, args, kwargs);
      case 'selectattr':
      case 'rejectattr':
        return selectAttribute(items, name === 'selectattr', args, argsAreStringLiterals, name);
      case 'map':
        return mapAttribute(items, kwargs);
    }
    throw new Error(`Unknown ArrayValue filter: ${name}`);
  }
  if (kind === 'string') {
    const text = operand as string;
    switch (name) {
      case 'indent': {
        const width = argument(args, 0, kwargs, 'width', 4);
        if (kindOf(width) !== 'integer') throw new Error('width must be a number');
        const first = argument(args, 1, kwargs, 'first', false);
        const blank = argument(args, 2, kwargs, 'blank', false);
        return indentLines(text, width as number, Boolean(rawValue(first)), Boolean(rawValue(blank)));
      }
      case 'replace':
        // The interpreter always appends the keyword arguments, even none, as a last positional one.
        return replaceMethod(text, args, kwargs);
    }
    throw new Error(`Unknown StringValue filter: ${name}`);
  }
  if (kind === 'object') {
    if (['get', 'items', 'keys', 'values', 'dictsort'].includes(name)) {
      const keywords: Kwargs = kwargs.size > 0 ? kwargs : undefined;
      return callObjectMethod(operand as object, name, args, keywords);
    }
    throw new Error(`Unknown ObjectValue filter: ${name}`);
  }
  throw new Error(`Cannot apply filter "${name}" to type: ${kind}`);
}

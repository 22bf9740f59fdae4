// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
import { compareValues, hasOwn, isArrayKind, isAttributeContainer, kindOf, ownEntry, TemplateFunction, type Kwargs } from './template-values.fast.js';
import type { Scope } from './scope.fast.js';
import { unsupported } from './unsupported-construct-error.fast.js';

/** StringValue's builtins that are functions (`length` is a property). */
const STRING_METHODS = new Set(['upper', 'lower', 'strip', 'title', 'capitalize', 'rstrip', 'lstrip', 'startswith', 'endswith', 'split', 'replace']);
/** ObjectValue's builtins; a namespace has none. */
const OBJECT_METHODS = new Set(['get', 'items', 'keys', 'values', 'dictsort']);

/** The interpreter's `evaluateMemberExpression` once object and property are evaluated (slices aside). */
export function getMember(object: unknown, property: unknown): unknown {
  const kind = kindOf(object);
  const propertyKind = kindOf(property);
  if (isAttributeContainer(kind)) {
    if (propertyKind !== 'string') throw new Error(`Cannot access property with non-string: got ${propertyKind}`);
    const name = property as string;
    const entry = ownEntry(object as object, name);
    if (entry.found) return entry.value;
    if (kind === 'object' && OBJECT_METHODS.has(name)) {
      return new TemplateFunction((args, kwargs) => callObjectMethod(object as object, name, args, kwargs));
    }
    return undefined;
  }
  if (isArrayKind(kind) || kind === 'string') {
    const sequence = object as string | unknown[];
    if (propertyKind === 'integer') return sequence.at(property as number);
    if (propertyKind === 'string') {
      const name = property as string;
      if (name === 'length') return sequence.length;
      if (kind === 'string' && STRING_METHODS.has(name)) {
        return new TemplateFunction((args, kwargs) => callStringMethod(sequence as string, name, args, kwargs));
      }
      return undefined;
    }
    throw new Error(`Cannot access property with non-string/non-number: got ${propertyKind}`);
  }
  if (propertyKind !== 'string') throw new Error(`Cannot access property with non-string: got ${propertyKind}`);
  return undefined;
}

export function callValue(callee: unknown, args: unknown[], kwargs: Kwargs, scope: Scope): unknown {
  if (callee instanceof TemplateFunction) return callee.call(args, kwargs, scope);
  throw new Error(`Cannot call something that is not a function: got ${kindOf(callee)}`);
}

/** `object.name(args)`: the same as reading the member then calling it, without allocating a bound method. */
export function callMethod(object: unknown, name: string, args: unknown[], kwargs: Kwargs, scope: Scope): unknown {
  if (typeof object === 'string') {
    if (STRING_METHODS.has(name)) return callStringMethod(object, name, args, kwargs);
  } else if (OBJECT_METHODS.has(name) && kindOf(object) === 'object' && !hasOwn(object as object, name)) {
    return callObjectMethod(object as object, name, args, kwargs);
  }
  return callValue(getMember(object, name), args, kwargs, scope);
}

function titleCase(value: string): string {
  return value.replace(/\b\w/g, (c) => c.toUpperCase());
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The interpreter's `replace(str, old, new, count)`. */
export function replaceText(text: string, oldValue: string, newValue: string, count: number | null): string {
  if (count === 0) return text;
  let remaining = count == null || count < 0 ? Infinity : count;
  const pattern = oldValue.length === 0 ? /(?=)/gu : new RegExp(escapeRegExp(oldValue), 'gu');
  return text.replaceAll(pattern, (match) => {
    if (remaining > 0) {
      --remaining;
      return newValue;
    }
    return match;
  });
}

function matchesAffix(args: unknown[], kwargs: Kwargs, name: string, test: (affix: string) => boolean): boolean {
  if (kwargs) unsupported(`keyword arguments to ${name}()`);
  if (args.length === 0) throw new Error(`${name}() requires at least one argument`);
  const pattern = args[0];
  if (typeof pattern === 'string') return test(pattern);
  if (isArrayKind(kindOf(pattern))) {
    for (const item of pattern as unknown[]) {
      if (typeof item !== 'string') throw new Error(`${name}() tuple elements must be strings`);
      if (test(item)) return true;
    }
    return false;
  }
  throw new Error(`${name}() argument must be a string or tuple of strings`);
}

function split(text: string, args: unknown[], kwargs: Kwargs): string[] {
  if (kwargs) unsupported('keyword arguments to split()');
  const separator = args.length > 0 ? args[0] : null;
  if (!(typeof separator === 'string' || separator === null)) throw new Error('sep argument must be a string or null');
  const maxsplit = args.length > 1 ? args[1] : -1;
  if (kindOf(maxsplit) !== 'integer') throw new Error('maxsplit argument must be a number');
  const limit = maxsplit as number;
  let result: string[] = [];
  if (separator === null) {
    const trimmed = text.trimStart();
    for (const { 0: match, index } of trimmed.matchAll(/\S+/g)) {
      if (limit !== -1 && result.length >= limit && index !== undefined) {
        result.push(match + trimmed.slice(index + match.length));
        break;
      }
      result.push(match);
    }
  } else {
    if (separator === '') throw new Error('empty separator');
    result = text.split(separator);
    if (limit !== -1 && result.length > limit) result.push(result.splice(limit).join(separator));
  }
  return result;
}

/** StringValue's builtins; methods that take no arguments ignore any given, as the interpreter's do. */
export function callStringMethod(text: string, name: string, args: unknown[], kwargs: Kwargs): unknown {
  switch (name) {
    case 'upper':
      return text.toUpperCase();
    case 'lower':
      return text.toLowerCase();
    case 'strip':
      return text.trim();
    case 'title':
      return titleCase(text);
    case 'capitalize':
      return text.charAt(0).toUpperCase() + text.slice(1);
    case 'rstrip':
      return text.trimEnd();
    case 'lstrip':
      return text.trimStart();
    case 'startswith':
      return matchesAffix(args, kwargs, 'startswith', (affix) => text.startsWith(affix));
    case 'endswith':
      return matchesAffix(args, kwargs, 'endswith', (affix) => text.endsWith(affix));
    case 'split':
      return split(text, args, kwargs);
    case 'replace':
      return replaceMethod(text, args, kwargs);
    default:
      return unsupported(`the string method ${name}`);
  }
}

/** `str.replace(old, new[, count])`; the interpreter appends keyword arguments as a last positional one. */
export function replaceMethod(text: string, args: unknown[], kwargs: Kwargs): string {
  const given = args.length + (kwargs ? 1 : 0);
  if (given < 2) throw new Error('replace() requires at least two arguments');
  const [oldValue, newValue] = args;
  if (!(typeof oldValue === 'string' && typeof newValue === 'string')) throw new Error('replace() arguments must be strings');
  let count: unknown = null;
  if (args.length > 2) count = args[2];
  else if (kwargs) count = kwargs.has('count') ? kwargs.get('count') : null;
  if (!(count === null || kindOf(count) === 'integer')) throw new Error('replace() count argument must be a number or null');
  return replaceText(text, oldValue, newValue, count as number | null);
}

function pick(args: unknown[], index: number, kwargs: Kwargs, name: string, fallback: unknown): unknown {
  if (index < args.length) return args[index];
  return kwargs?.has(name) ? kwargs.get(name) : fallback;
}

/** ObjectValue's builtins. */
export function callObjectMethod(object: object, name: string, args: unknown[], kwargs: Kwargs): unknown {
  switch (name) {
    case 'get': {
      if (kwargs) unsupported('keyword arguments to get()');
      const key = args[0];
      if (typeof key !== 'string') throw new Error(`Object key must be a string: got ${kindOf(key)}`);
      if (hasOwn(object, key)) return (object as Record<string, unknown>)[key];
      return args.length > 1 ? args[1] : null;
    }
    case 'items':
      return Object.entries(object);
    case 'keys':
      return Object.keys(object);
    case 'values':
      return Object.values(object);
    case 'dictsort':
      return dictsort(object, args, kwargs);
    default:
      return unsupported(`the mapping method ${name}`);
  }
}

function dictsort(object: object, args: unknown[], kwargs: Kwargs): unknown[] {
  const caseSensitive = pick(args, 0, kwargs, 'case_sensitive', false);
  if (typeof caseSensitive !== 'boolean') throw new Error('case_sensitive must be a boolean');
  const by = pick(args, 1, kwargs, 'by', 'key');
  if (typeof by !== 'string') throw new Error('by must be a string');
  if (!['key', 'value'].includes(by)) throw new Error("by must be either 'key' or 'value'");
  const reverse = pick(args, 2, kwargs, 'reverse', false);
  if (typeof reverse !== 'boolean') throw new Error('reverse must be a boolean');
  const index = by === 'key' ? 0 : 1;
  return Object.entries(object).sort((a, b) => {
    const result = compareValues(a[index], b[index], caseSensitive);
    return reverse ? -result : result;
  });
}

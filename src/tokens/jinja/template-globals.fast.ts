// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
import { Scope } from './scope.fast.js';
import { isArrayKind, kindOf, Namespace, TemplateFunction, type Kwargs } from './template-values.fast.js';
import { unsupported } from './unsupported-construct-error.fast.js';

function namespaceEntry(pair: unknown): [string, unknown] {
  let values: unknown[] | undefined;
  if (isArrayKind(kindOf(pair))) values = pair as unknown[];
  else if (typeof pair === 'string') values = Array.from(pair);
  if (values?.length !== 2) throw new Error('namespace expected an object or an iterable of [key, value] pairs');
  const [key, value] = values;
  if (typeof key !== 'string') throw new Error('namespace keys must be strings');
  return [key, value];
}

function namespace(args: unknown[], kwargs: Kwargs): Namespace {
  if (args.length > 1) throw new Error(`namespace expected at most 1 argument, got ${args.length}`);
  const entries = new Map<string, unknown>();
  if (args.length === 1) {
    const source = args[0];
    const kind = kindOf(source);
    if (kind === 'object') {
      for (const [key, value] of Object.entries(source as object)) entries.set(key, value);
    } else if (isArrayKind(kind)) {
      for (const pair of source as unknown[]) {
        const [key, value] = namespaceEntry(pair);
        entries.set(key, value);
      }
    } else {
      throw new Error(`'${kind}' object is not iterable`);
    }
  }
  if (kwargs) for (const [key, value] of kwargs) entries.set(key, value);
  return new Namespace(entries);
}

/** `raise_exception(message)`: an Error with the template's message, as the interpreter throws. */
function raiseException(args: unknown[], kwargs: Kwargs): never {
  if (kwargs) unsupported('keyword arguments to raise_exception()');
  const message = args[0];
  if (message === undefined || typeof message === 'string' || typeof message === 'number' || typeof message === 'boolean' || message === null) {
    throw new Error(message as string);
  }
  return unsupported('raise_exception() with a container');
}

function range(args: unknown[], kwargs: Kwargs): number[] {
  if (kwargs || args.length < 1 || args.length > 3 || args.some((arg) => kindOf(arg) !== 'integer')) unsupported('range() with other than 1 to 3 integers');
  let [start, stop, step = 1] = args as number[];
  if (stop === undefined) {
    stop = start;
    start = 0;
  }
  if (step === 0) throw new Error('range() step must not be zero');
  const result: number[] = [];
  if (step > 0) for (let i = start as number; i < (stop as number); i += step) result.push(i);
  else for (let i = start as number; i > (stop as number); i += step) result.push(i);
  return result;
}

function strftime(date: Date, format: string): string {
  const monthLong = new Intl.DateTimeFormat(undefined, { month: 'long' });
  const monthShort = new Intl.DateTimeFormat(undefined, { month: 'short' });
  const pad2 = (n: number): string => (n < 10 ? `0${n}` : n.toString());
  return format.replace(/%[YmdbBHM%]/g, (token) => {
    switch (token) {
      case '%Y':
        return date.getFullYear().toString();
      case '%m':
        return pad2(date.getMonth() + 1);
      case '%d':
        return pad2(date.getDate());
      case '%b':
        return monthShort.format(date);
      case '%B':
        return monthLong.format(date);
      case '%H':
        return pad2(date.getHours());
      case '%M':
        return pad2(date.getMinutes());
      case '%%':
        return '%';
      default:
        return token;
    }
  });
}

function strftimeNow(args: unknown[], kwargs: Kwargs): string {
  if (kwargs || typeof args[0] !== 'string') return unsupported('strftime_now() without a format string');
  return strftime(new Date(), args[0]);
}

/**
 * The names the interpreter's global environment declares (`setupGlobals`, and the `namespace`
 * every Environment holds). A render variable with one of these names makes the interpreter throw.
 */
export const GLOBAL_SCOPE: Scope = globalScope({
  namespace: new TemplateFunction(namespace),
  false: false,
  true: true,
  none: null,
  raise_exception: new TemplateFunction(raiseException),
  range: new TemplateFunction(range),
  strftime_now: new TemplateFunction(strftimeNow),
  True: true,
  False: false,
  None: null,
});

function globalScope(globals: Record<string, unknown>): Scope {
  const scope = new Scope();
  for (const [name, value] of Object.entries(globals)) scope.assign(name, value);
  return scope;
}

import { ConfigError } from '../core/errors/config-error.js';

/** A value as Hydra reads one from the command line: what OmegaConf then holds. */
export type HydraValue = null | boolean | number | string | HydraValue[] | { [key: string]: HydraValue };

/** `key=value` (change), `+key=value` (add), `++key=value` (add or change), `~key` (delete). */
export type HydraOverrideKind = 'change' | 'add' | 'force-add' | 'delete';

export interface HydraOverride {
  /** The argument as given, for messages. */
  text: string;
  kind: HydraOverrideKind;
  /** The dotted key, split at its dots. */
  path: string[];
  value?: HydraValue;
}

const ID = '[A-Za-z_][A-Za-z0-9_]*';
const KEY = new RegExp(`^(\\+\\+|\\+|~)?(${ID}|(?:${ID}|0|[1-9](?:_?\\d)*)(?:\\.(?:${ID}|0|[1-9](?:_?\\d)*))+)(=([\\s\\S]*))?$`);

/**
 * One override read as Hydra's override grammar reads it (hydra/grammar/OverrideParser.g4): the key a
 * name or dotted path, the value a primitive (`null`, `true`, `1_000`, `0.6`, `inf`, bare text, quoted
 * text), a list `[a,b]` or a dict `{a:1}`. What the grammar refuses, and what gymnast cannot mean
 * (sweeps `a,b`, functions `range(3)`, interpolations `${…}`), is a ConfigError naming the argument.
 */
export function parseHydraOverride(text: string): HydraOverride {
  const match = KEY.exec(text);
  if (!match) throw new ConfigError(`${text}: not a Hydra override: expected +key=value (a key of letters, digits and _, dotted for a nested one)`);
  const [, prefix, key, equals, valueText] = match as unknown as [string, string | undefined, string, string | undefined, string | undefined];
  const kind: HydraOverrideKind = prefix === '++' ? 'force-add' : prefix === '+' ? 'add' : prefix === '~' ? 'delete' : 'change';
  const path = key.split('.');
  if (equals === undefined) {
    if (kind !== 'delete') throw new ConfigError(`${text}: expected a flag or a NeMo Gym override (+${key}=value)`);
    return { text, kind, path };
  }
  return { text, kind, path, value: new ValueReader(text, valueText!).read() };
}

/** Characters Hydra takes in unquoted text besides letters, digits and `_`. */
const UNQUOTED = new Set(['/', '-', '\\', '+', '.', '$', '%', '*', '@', '?', '|', ':', ' ', '\t']);
/** What a backslash escapes in unquoted text (Hydra's ESC token). */
const ESCAPED = new Set(['\\', '(', ')', '[', ']', '{', '}', ':', '=', ',', ' ', '\t']);

const INT = /^[+-]?(0|[1-9](_?\d)*)$/;
const DIGITS = '\\d(_?\\d)*';
const UNSIGNED = '(0|[1-9](_?\\d)*)';
const POINT_FLOAT = `(${UNSIGNED}\\.|${UNSIGNED}?\\.${DIGITS})`;
const FLOAT = new RegExp(`^[+-]?(${POINT_FLOAT}|(${UNSIGNED}|${POINT_FLOAT})[eE][+-]?${DIGITS}|inf|nan)$`, 'i');

/** A recursive-descent reader of one override's value. */
class ValueReader {
  readonly #text: string;
  readonly #value: string;
  #at = 0;

  constructor(text: string, value: string) {
    this.#text = text;
    this.#value = value;
  }

  read(): HydraValue {
    this.#skipSpace();
    if (this.#at === this.#value.length) return '';
    const value = this.#element('top');
    this.#skipSpace();
    if (this.#peek() === ',')
      throw this.#error(`a comma-separated value is a Hydra sweep, which gymnast does not run: write a list as [a,b], or quote the text ('a,b')`);
    if (this.#at < this.#value.length) throw this.#unexpected();
    return value;
  }

  #element(context: 'top' | 'list' | 'dict'): HydraValue {
    this.#skipSpace();
    const next = this.#peek();
    if (next === '[') return this.#list();
    if (next === '{') return this.#dict();
    if (next === "'" || next === '"') return this.#quoted(next);
    return this.#primitive(context === 'dict' ? new Set([',', '}']) : context === 'list' ? new Set([',', ']']) : new Set([',']));
  }

  #list(): HydraValue[] {
    this.#at += 1;
    const items: HydraValue[] = [];
    this.#skipSpace();
    if (this.#peek() === ']') {
      this.#at += 1;
      return items;
    }
    for (;;) {
      items.push(this.#element('list'));
      this.#skipSpace();
      const next = this.#value[this.#at++];
      if (next === ']') return items;
      if (next !== ',') throw this.#unexpected(this.#at - 1, 'a list closes with ]');
    }
  }

  #dict(): { [key: string]: HydraValue } {
    this.#at += 1;
    const entries: { [key: string]: HydraValue } = {};
    this.#skipSpace();
    if (this.#peek() === '}') {
      this.#at += 1;
      return entries;
    }
    for (;;) {
      const key = this.#primitive(new Set([':', ',', '}']));
      if (this.#value[this.#at++] !== ':') throw this.#unexpected(this.#at - 1, 'a dict holds key: value pairs');
      Object.defineProperty(entries, String(key), { value: this.#element('dict'), enumerable: true, writable: true, configurable: true });
      this.#skipSpace();
      const next = this.#value[this.#at++];
      if (next === '}') return entries;
      if (next !== ',') throw this.#unexpected(this.#at - 1, 'a dict closes with }');
    }
  }

  /** Quoted text: a backslash escapes the quote (and a backslash before it), nothing else. */
  #quoted(quote: string): string {
    const start = this.#at;
    let text = '';
    for (let at = start + 1; at < this.#value.length; at += 1) {
      const char = this.#value[at]!;
      if (char === quote) {
        this.#at = at + 1;
        return text;
      }
      if (char === '\\') {
        let run = 0;
        while (this.#value[at + run] === '\\') run += 1;
        if (this.#value[at + run] === quote) {
          const closing = run % 2 === 0;
          text += '\\'.repeat(Math.floor(run / 2)) + (closing ? '' : quote);
          at += run;
          if (closing) {
            this.#at = at + 1;
            return text;
          }
          continue;
        }
        text += '\\'.repeat(run);
        at += run - 1;
        continue;
      }
      text += char;
    }
    throw this.#error(`its ${quote} quote is not closed`);
  }

  /** Unquoted text up to a delimiter, typed as Hydra types a lone token (null, a boolean, a number), else text. */
  #primitive(stops: ReadonlySet<string>): HydraValue {
    const start = this.#at;
    const chars: { char: string; escaped: boolean }[] = [];
    while (this.#at < this.#value.length && !stops.has(this.#value[this.#at]!)) {
      const char = this.#value[this.#at]!;
      if (char === '$' && this.#value[this.#at + 1] === '{')
        throw this.#error("${…} interpolations are resolved by NeMo Gym's config, which gymnast does not read: give the value itself");
      if (char === '(')
        throw this.#error(
          `${chars
            .map((c) => c.char)
            .join('')
            .trim()}(…) is a Hydra function (a sweep), which gymnast does not run`,
        );
      if (char === '\\' && ESCAPED.has(this.#value[this.#at + 1] ?? '')) {
        chars.push({ char: this.#value[this.#at + 1]!, escaped: true });
        this.#at += 2;
        continue;
      }
      if (!/[A-Za-z0-9_]/.test(char) && !UNQUOTED.has(char)) throw this.#unexpected(this.#at, 'quote the value to mean it as text');
      chars.push({ char, escaped: false });
      this.#at += 1;
    }
    // Whitespace around the value is dropped, an escaped space kept.
    const blank = (entry: { char: string; escaped: boolean } | undefined) =>
      entry !== undefined && !entry.escaped && (entry.char === ' ' || entry.char === '\t');
    while (blank(chars[0])) chars.shift();
    while (blank(chars.at(-1))) chars.pop();
    if (chars.length === 0) throw this.#unexpected(start, 'expected a value');
    const text = chars.map((entry) => entry.char).join('');
    return chars.some((entry) => entry.escaped) ? text : typed(text);
  }

  #skipSpace(): void {
    while (this.#value[this.#at] === ' ' || this.#value[this.#at] === '\t') this.#at += 1;
  }

  #peek(): string | undefined {
    return this.#value[this.#at];
  }

  #unexpected(at = this.#at, hint?: string): ConfigError {
    const char = this.#value[at];
    return this.#error(`${char === undefined ? 'the value ends too soon' : `unexpected ${JSON.stringify(char)} in the value`}${hint ? ` (${hint})` : ''}`);
  }

  #error(problem: string): ConfigError {
    return new ConfigError(`${this.#text}: ${problem}`);
  }
}

/** A lone token's value as Hydra types it; text of several tokens stays text. */
function typed(text: string): HydraValue {
  if (/^null$/i.test(text)) return null;
  if (/^(true|false)$/i.test(text)) return text.toLowerCase() === 'true';
  if (INT.test(text)) return Number(text.replaceAll('_', ''));
  if (FLOAT.test(text)) {
    const sign = text.startsWith('-') ? -1 : 1;
    if (/inf$/i.test(text)) return sign * Infinity;
    if (/nan$/i.test(text)) return Number.NaN;
    return Number(text.replaceAll('_', ''));
  }
  return text;
}

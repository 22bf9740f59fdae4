/**
 * The few Python string behaviours NeMo Gym's verifiers lean on, so the ports read the same text the
 * same way: `str.split()` and `str.strip()` on whitespace, `str.splitlines()`, `float(text)`, and the
 * `\text{…}` unwrapping string_match and mcqa share.
 */

// `str.isspace()`: JavaScript's `\s` lacks \x1c-\x1f and U+0085 and adds U+FEFF.
const PYTHON_SPACE = '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const SPACE_RUNS = new RegExp(`[${PYTHON_SPACE}]+`);

/** `" ".join(text.split())`: whitespace runs become one space, ends trimmed. */
export function collapseWhitespace(text: string): string {
  return text
    .split(SPACE_RUNS)
    .filter((part) => part !== '')
    .join(' ');
}

/** `text.strip(chars)`: with no `chars`, Python's whitespace. */
export function pythonStrip(text: string, chars?: string): string {
  const set = chars === undefined ? PYTHON_SPACE : chars.replace(/[\\\]^-]/g, '\\$&');
  return text.replace(new RegExp(`^[${set}]+|[${set}]+$`, 'g'), '');
}

/** `str.splitlines()`: Python breaks lines on more than `\n` (a bare `\r`, `\v`, `\f`, U+2028 …). */
export function splitLines(text: string): string[] {
  return text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
}

// Python's float literal: underscores between digits, optional exponent, inf/infinity/nan in any case.
const DIGITS = String.raw`\d(?:_?\d)*`;
const PYTHON_FLOAT = new RegExp(String.raw`^[+-]?(?:(?:${DIGITS}(?:\.(?:${DIGITS})?)?|\.${DIGITS})(?:[eE][+-]?${DIGITS})?|inf|infinity|nan)$`, 'i');

/** `float(text)`, or undefined where Python raises `ValueError`. */
export function pythonFloat(text: string): number | undefined {
  const trimmed = text.trim();
  if (!PYTHON_FLOAT.test(trimmed)) return undefined;
  const lower = trimmed.toLowerCase().replace(/_/g, '');
  if (lower.endsWith('nan')) return Number.NaN;
  if (lower.endsWith('inf') || lower.endsWith('infinity')) return lower.startsWith('-') ? -Infinity : Infinity;
  return Number(lower);
}

// `re.fullmatch(r"\\text\{\s*(.*?)\s*\}", value, re.S)`: the whole value is one \text{…}.
const LATEX_TEXT_WRAP = /^\\text\{\s*([\s\S]*?)\s*\}$/;

/** Peels `\text{…}` wrappers off a value made only of them (`\text{\text{Paris}}` → `Paris`). */
export function stripLatexTextWrappers(value: string): string {
  for (;;) {
    const match = LATEX_TEXT_WRAP.exec(value);
    if (!match) return value;
    value = match[1]!;
  }
}

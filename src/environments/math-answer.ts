/**
 * The model's final answer: the content of the last `\boxed{…}` / `\fbox{…}` (braces matched, escaped
 * braces skipped, `\boxed 5` accepted), else the last number in the text, else null.
 */
export function extractMathAnswer(text: string): string | null {
  return lastBoxed(text) ?? lastNumber(text);
}

function lastBoxed(text: string): string | null {
  const start = Math.max(text.lastIndexOf('\\boxed'), text.lastIndexOf('\\fbox'));
  if (start < 0) return null;
  let position = start + (text.startsWith('\\boxed', start) ? '\\boxed'.length : '\\fbox'.length);
  if (text[position] === ' ') {
    const bare = /^ ([^\s$]+)/.exec(text.slice(position));
    return bare ? bare[1]! : null;
  }
  if (text[position] !== '{') return null;
  let depth = 0;
  const contentStart = position + 1;
  for (; position < text.length; position++) {
    const character = text[position];
    if (character === '\\') {
      position += 1;
      continue;
    }
    if (character === '{') depth += 1;
    if (character === '}' && --depth === 0) return text.slice(contentStart, position).trim();
  }
  return null;
}

function lastNumber(text: string): string | null {
  // Thousands separators only in groups of three, so "42, I think" gives 42, not "42,".
  const numbers = text.match(/-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?(?:\/\d+)?|-?\.\d+/g);
  const last = numbers?.at(-1);
  return last === undefined ? null : last.replace(/,/g, '');
}

/**
 * Evaluates the calculator tool's integer expressions: numbers joined by `+`, `-`, `*`, with `*` binding
 * tighter. Returns undefined for anything else (no parentheses, no division: the format stays small).
 */
export function evaluateArithmetic(expression: string): number | undefined {
  const compact = expression.replace(/\s+/g, '');
  if (!/^-?\d+([+*-]\d+)*$/.test(compact)) return undefined;
  let total = 0;
  for (const term of compact.match(/^-?[^+-]+|[+-][^+-]+/g) ?? []) {
    const sign = term.startsWith('-') ? -1 : 1;
    const product = term
      .replace(/^[+-]/, '')
      .split('*')
      .reduce((value, factor) => value * Number(factor), 1);
    total += sign * product;
  }
  return Number.isSafeInteger(total) ? total : undefined;
}

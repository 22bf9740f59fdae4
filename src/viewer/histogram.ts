/**
 * One bar. Over integer values (turns, tokens, 0/1 rewards) it holds the integers `lo` through `hi`,
 * both included (`lo === hi`: one value); over fractional values, `[lo, hi)`, the last bar's `hi`
 * included. A bar for reward 1 reads "1", never "1 to 2".
 */
export interface HistogramBin {
  lo: number;
  hi: number;
  count: number;
}

/**
 * Equal-width bins over the finite values taken at `positions`: at most `maxBins`, and for integer
 * values (turns, tokens) never narrower than 1, so small counts get one bar per value. No values, no bins.
 */
export function histogram(values: ArrayLike<number>, positions: Iterable<number>, maxBins = 20): HistogramBin[] {
  let min = Infinity;
  let max = -Infinity;
  let integers = true;
  for (const at of positions) {
    const value = values[at]!;
    if (!Number.isFinite(value)) continue;
    if (value < min) min = value;
    if (value > max) max = value;
    if (!Number.isInteger(value)) integers = false;
  }
  if (min > max) return [];
  const span = integers ? max - min + 1 : max - min;
  const bins = span === 0 ? 1 : integers ? Math.min(maxBins, span) : maxBins;
  const width = span === 0 ? 1 : integers ? Math.ceil(span / bins) : span / bins;
  const counts = new Float64Array(bins);
  for (const at of positions) {
    const value = values[at]!;
    if (Number.isFinite(value)) counts[Math.min(bins - 1, Math.floor((value - min) / width))]! += 1;
  }
  // An integer bar ends on its last integer; a fractional one where the next begins.
  const end = integers ? 1 : 0;
  return Array.from(counts, (count, bin) => ({ lo: min + bin * width, hi: span === 0 ? max : Math.min(min + (bin + 1) * width - end, max), count }));
}

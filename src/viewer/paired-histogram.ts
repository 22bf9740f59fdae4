/** One bar pair: how many of run A's values and of run B's fall in `[lo, hi)` (the last bin's `hi` included). */
export interface PairedBin {
  lo: number;
  hi: number;
  a: number;
  b: number;
}

/**
 * Two sets of values counted in the same equal-width bins (at most `bins`, over both sets' range), so
 * their distributions can be drawn over each other. All values equal: one bin. No values: no bins.
 */
export function pairedHistogram(a: readonly number[], b: readonly number[], bins = 10): PairedBin[] {
  let min = Infinity;
  let max = -Infinity;
  for (const value of [...a, ...b]) {
    if (value < min) min = value;
    if (value > max) max = value;
  }
  if (min > max) return [];
  const count = max === min ? 1 : bins;
  const width = (max - min) / count;
  const result = Array.from({ length: count }, (_, bin) => ({ lo: min + bin * width, hi: bin === count - 1 ? max : min + (bin + 1) * width, a: 0, b: 0 }));
  const binOf = (value: number) => (width === 0 ? 0 : Math.min(count - 1, Math.floor((value - min) / width)));
  for (const value of a) result[binOf(value)]!.a += 1;
  for (const value of b) result[binOf(value)]!.b += 1;
  return result;
}

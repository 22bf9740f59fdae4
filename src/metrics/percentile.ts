/** The p-th percentile (0–100) with linear interpolation between ranks (numpy's default). */
export function percentile(values: ArrayLike<number>, p: number): number {
  if (values.length === 0) throw new RangeError('percentile of an empty list');
  const sorted = Float64Array.from(values).sort();
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}

/** The p-th percentile (0–100) with linear interpolation between ranks (numpy's default). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new RangeError('percentile of an empty list');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}

export const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0);

export function mean(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('mean of an empty list');
  return sum(values) / values.length;
}

export const max = (values: readonly number[]): number => values.reduce((best, value) => Math.max(best, value), -Infinity);
export const min = (values: readonly number[]): number => values.reduce((best, value) => Math.min(best, value), Infinity);

/** Fraction of `items` for which `predicate` holds. */
export function rate<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  return items.filter(predicate).length / items.length;
}

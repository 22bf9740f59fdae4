import { mean } from './summarize.js';

/** The five statistics NeMo Gym reports per numeric column, in its order. */
export const STATISTICS = ['mean', 'max', 'min', 'median', 'std'] as const;

/** pandas' median: the middle value, or the mean of the two middle values. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** pandas' default std: the sample standard deviation (ddof = 1); NaN for a single value. */
export function sampleStd(values: readonly number[]): number {
  if (values.length < 2) return Number.NaN;
  const m = mean(values);
  return Math.sqrt(values.reduce((total, value) => total + (value - m) ** 2, 0) / (values.length - 1));
}

/**
 * `mean/<col>`, `max/<col>`, `min/<col>`, `median/<col>`, `std/<col>` for every column, statistic-major
 * as NeMo Gym lays them out. Missing values are skipped; a std that cannot be computed (one value)
 * becomes 0 when every std is NaN, as NeMo Gym fills it, and is left out otherwise.
 */
export function columnStatistics(rows: readonly ReadonlyMap<string, number>[]): Record<string, number> {
  const columns = [...new Set(rows.flatMap((row) => [...row.keys()]))];
  const valuesOf = (column: string) => rows.map((row) => row.get(column)).filter((value): value is number => value !== undefined && !Number.isNaN(value));
  const stds = columns.map((column) => sampleStd(valuesOf(column)));
  const allStdNaN = stds.every(Number.isNaN);
  const result: Record<string, number> = {};
  for (const statistic of STATISTICS) {
    columns.forEach((column, i) => {
      const values = valuesOf(column);
      if (values.length === 0) return;
      const value =
        statistic === 'mean' ? mean(values)
        : statistic === 'max' ? Math.max(...values)
        : statistic === 'min' ? Math.min(...values)
        : statistic === 'median' ? median(values)
        : allStdNaN ? 0 : stds[i]!;
      if (!Number.isNaN(value)) result[`${statistic}/${column}`] = value;
    });
  }
  return result;
}

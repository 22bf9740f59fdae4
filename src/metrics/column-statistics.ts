import type { MetricColumn } from './metric-columns.js';

/** The five statistics NeMo Gym reports per numeric column, in its order. */
export const STATISTICS = ['mean', 'max', 'min', 'median', 'std'] as const;

interface Described {
  count: number;
  mean: number;
  max: number;
  min: number;
  median: number;
  std: number;
}

/**
 * NeMo Gym's `describe_dataframe` over the rows at `positions`: `mean/<col>`, `max/<col>`,
 * `min/<col>`, `median/<col>`, `std/<col>`, statistic-major in column order, as pandas computes them:
 * - missing values are skipped, and a statistic of no values is left out;
 * - `std` is the sample standard deviation (ddof = 1), undefined for one value; when it is undefined
 *   for every column (e.g. a task with one rollout), it is 0 for the columns no row misses.
 * `scratch` holds at least `positions.length` numbers; it is overwritten. The statistics are added
 * to `into` (a group's metrics are written straight into the group), which is returned.
 */
export function describeColumns<T extends object>(
  columns: readonly MetricColumn[],
  positions: Uint32Array,
  scratch: Float64Array,
  into: T = {} as T,
): T & Record<string, number> {
  const described = columns.map((column) => describe(column, positions, scratch));
  const noStd = described.every((column) => Number.isNaN(column.std));
  const statistics = into as Record<string, number>;
  STATISTICS.forEach((statistic, s) => {
    columns.forEach((column, i) => {
      const value = statistic === 'std' && noStd && described[i]!.count === positions.length ? 0 : described[i]![statistic];
      if (!Number.isNaN(value)) statistics[statisticKeys(column)[s]!] = value;
    });
  });
  return into as T & Record<string, number>;
}

/** A column's `<statistic>/<name>` keys in STATISTICS order, made once: an aggregate describes every task's group with the same columns. */
const keysOfColumn = new WeakMap<MetricColumn, readonly string[]>();

function statisticKeys(column: MetricColumn): readonly string[] {
  let keys = keysOfColumn.get(column);
  if (keys === undefined) keysOfColumn.set(column, (keys = STATISTICS.map((statistic) => `${statistic}/${column.name}`)));
  return keys;
}

function describe(column: MetricColumn, positions: Uint32Array, scratch: Float64Array): Described {
  let count = 0;
  let sum = 0;
  let max = -Infinity;
  let min = Infinity;
  for (let i = 0; i < positions.length; i++) {
    const value = column.values.get(positions[i]!);
    if (Number.isNaN(value)) continue;
    scratch[count++] = value;
    sum += value;
    if (value > max) max = value;
    if (value < min) min = value;
  }
  if (count === 0) return { count, mean: Number.NaN, max: Number.NaN, min: Number.NaN, median: Number.NaN, std: Number.NaN };
  const values = scratch.subarray(0, count);
  const mean = sum / count;
  return { count, mean, max, min, std: sampleStd(values, mean), median: median(values) };
}

/** The sample standard deviation (ddof = 1) around a known mean, in two passes for accuracy; NaN for one value. */
export function sampleStd(values: Float64Array, mean: number): number {
  if (values.length < 2) return Number.NaN;
  let squares = 0;
  for (let i = 0; i < values.length; i++) squares += (values[i]! - mean) ** 2;
  return Math.sqrt(squares / (values.length - 1));
}

/** pandas' median: the middle value, or the mean of the two middle ones. Sorts `values` in place. */
export function median(values: Float64Array): number {
  values.sort();
  const middle = values.length >> 1;
  return values.length % 2 === 1 ? values[middle]! : (values[middle - 1]! + values[middle]!) / 2;
}

import type { ReplicaReport } from '../../src/testing/index.js';

/** The fleet's busy fraction in each simulated second: the mean of its replicas' (a replica idle or not yet started counts 0). */
export function fleetBusy(reports: readonly ReplicaReport[], seconds: number): number[] {
  return Array.from({ length: seconds }, (_, second) => reports.reduce((sum, report) => sum + (report.busyTimeline[second] ?? 0), 0) / reports.length);
}

/** The mean of `values[from … to)`. */
export function mean(values: readonly number[], from = 0, to = values.length): number {
  const slice = values.slice(from, to);
  return slice.length === 0 ? 0 : slice.reduce((sum, value) => sum + value, 0) / slice.length;
}

/** `values` averaged over windows of `width`: a timeline short enough to print. */
export function windows(values: readonly number[], width: number): number[] {
  return Array.from({ length: Math.ceil(values.length / width) }, (_, i) => mean(values, i * width, (i + 1) * width));
}

export const percent = (fraction: number) => `${(fraction * 100).toFixed(1)}%`;

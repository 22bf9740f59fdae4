/** The source of time for timing fields; injected so tests can make records byte-stable. */
export interface Clock {
  /** Milliseconds, monotonic within a process. */
  now(): number;
  /**
   * The wall time of a reading of `now`, in ms since the epoch (a row's `started_at`). Optional: a
   * clock injected to make records byte-stable records none.
   */
  epochMs?(reading: number): number;
}

export const systemClock: Clock = { now: () => performance.now(), epochMs: (reading) => Math.round(performance.timeOrigin + reading) };

/**
 * Milliseconds from `from` to `to` (never negative), to the microsecond: a timer difference's full
 * double (21.498392000000081) says no more, and took 17 bytes a value in every row written.
 */
export function elapsedMs(from: number, to: number): number {
  return Math.max(0, Math.round((to - from) * 1000) / 1000);
}

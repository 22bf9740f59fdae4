/** The source of time for timing fields; injected so tests can make records byte-stable. */
export interface Clock {
  /** Milliseconds, monotonic within a process. */
  now(): number;
}

export const systemClock: Clock = { now: () => performance.now() };

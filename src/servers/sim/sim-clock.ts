import { abortableDelay } from '../../util/abortable-delay.js';

/**
 * Simulated time in seconds, the one every number the simulator reports is measured in. The fleet's
 * replicas share one clock, so their busy time, arrivals and latencies line up.
 */
export interface SimClock {
  now(): number;
  /** Resolves once simulated time reaches `time` (at once when it has); rejects with the signal's reason when it aborts first. */
  sleepUntil(time: number, signal?: AbortSignal): Promise<void>;
}

/**
 * Simulated time running `timeScale` times faster than wall time, from the clock's creation: what
 * HTTP clients see (`--time-scale`). A timer fires no sooner than about a millisecond of wall time,
 * so at scale X tokens reach clients up to about X milliseconds of simulated time late; the engine's
 * own times stay exact (see `SimEngine`).
 */
export class ScaledClock implements SimClock {
  readonly #origin = performance.now();

  constructor(readonly timeScale: number) {
    if (!(timeScale > 0) || !Number.isFinite(timeScale)) throw new RangeError(`timeScale must be a finite number > 0, got ${timeScale}`);
  }

  now(): number {
    return ((performance.now() - this.#origin) / 1000) * this.timeScale;
  }

  sleepUntil(time: number, signal?: AbortSignal): Promise<void> {
    const wallMs = ((time - this.now()) / this.timeScale) * 1000;
    if (wallMs <= 0) return signal?.aborted ? Promise.reject(signal.reason) : Promise.resolve();
    return abortableDelay(wallMs, signal);
  }
}

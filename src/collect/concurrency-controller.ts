import type { VllmLoad } from '../http-client/vllm-load.js';

/** One replica's load at one poll, or why it could not be read (it is down, or not answering). */
export type ReplicaReading = { load: VllmLoad } | { error: unknown };

export interface ConcurrencyControllerOptions {
  /** Rollouts in flight to start from. */
  initial: number;
  /** Never fewer in flight than this. */
  min: number;
  /** Never more in flight than this. */
  max: number;
}

/** The KV usage aimed at, at first and at most: headroom for the requests running to grow into. */
const KV_TARGET = { start: 0.85, floor: 0.5, ceiling: 0.92, step: 0.05, recovery: 0.01 } as const;

/** Polls without a preemption after which the KV target creeps back up. */
const CALM_POLLS = 5;

/** How many rollouts one request in flight stands for, at most: the rest are between turns (a tool running). */
const MAX_ROLLOUTS_PER_REQUEST = 4;

/**
 * `--concurrency auto`: from each replica's vLLM metrics, how many rollouts to keep in flight so that
 * every replica's batch is as large as its KV cache holds without preempting.
 *
 * A replica whose KV cache is `kvCacheUsage` full with `running` requests holds about
 * `running × target / kvCacheUsage` at the target usage; the sum over the replicas serving, times the
 * rollouts per request in flight, is the concurrency aimed at. A replica with requests that made no
 * token since the last poll (paused for a refit, or stuck) counts only the requests it holds, so the
 * others stay full; one that cannot be read (down) counts nothing, its requests being retried
 * elsewhere. Preemptions lower the target usage and cut the concurrency by a tenth; a calm spell lets
 * the target creep back. Each step at most halves or doubles the concurrency, plus 8 requests a replica
 * while they are few, so it ramps from `initial` in a few polls and one odd reading does little.
 */
export class ConcurrencyController {
  #limit: number;
  #kvTarget: number = KV_TARGET.start;
  #calm = 0;
  /** Each serving replica's last reading, the requests it held and the capacity it was given. */
  #previous: ({ load: VllmLoad; held: number; capacity: number } | undefined)[] = [];
  readonly #options: ConcurrencyControllerOptions;

  constructor(options: ConcurrencyControllerOptions) {
    this.#options = options;
    this.#limit = clamp(options.initial, options.min, options.max);
  }

  get limit(): number {
    return this.#limit;
  }

  /** The KV usage aimed at now. */
  get kvTarget(): number {
    return this.#kvTarget;
  }

  /** Takes one poll of every replica (in the same order each time) and gives the concurrency to run at. */
  next(readings: readonly ReplicaReading[]): number {
    const previous = this.#previous;
    this.#previous = [];
    let wanted = 0;
    let parked = 0;
    let inFlight = 0;
    let misjudged = 0;
    let serving = 0;
    readings.forEach((reading, replica) => {
      if (!('load' in reading)) return;
      const { load } = reading;
      const held = load.running + load.waiting;
      inFlight += held;
      const before = previous[replica];
      if (before !== undefined && held > 0 && load.generationTokens === before.load.generationTokens) {
        parked += held;
        return;
      }
      serving += 1;
      const capacity = this.#capacity(load);
      this.#previous[replica] = { load, held, capacity };
      wanted += capacity;
      // Preemptions on a replica that held no more than its share were the target's misjudgement; on one
      // the router had given more (another replica's requests retried there) they are the excess draining.
      if (before !== undefined && load.preemptions > before.load.preemptions && before.held <= before.capacity) misjudged += 1;
    });
    if (serving === 0) return this.#limit;
    this.#adjustTarget(misjudged > 0);
    const rolloutsPerRequest = clamp(this.#limit / Math.max(1, inFlight), 1, MAX_ROLLOUTS_PER_REQUEST);
    let next = (wanted + parked) * rolloutsPerRequest;
    if (misjudged > 0) next = Math.min(next, this.#limit * 0.9);
    next = clamp(next, this.#limit / 2, this.#limit * 2 + 8 * serving);
    this.#limit = Math.round(clamp(next, this.#options.min, this.#options.max));
    return this.#limit;
  }

  /** Requests one serving replica should hold: as many as fill its KV cache to the target, growing at most twofold a poll. */
  #capacity(load: VllmLoad): number {
    const held = load.running + load.waiting;
    const growth = 2 * held + 8;
    if (load.running === 0 || load.kvCacheUsage < 0.01) return growth;
    return Math.min((load.running * this.#kvTarget) / load.kvCacheUsage, growth);
  }

  #adjustTarget(misjudged: boolean): void {
    if (misjudged) {
      this.#kvTarget = Math.max(KV_TARGET.floor, this.#kvTarget - KV_TARGET.step);
      this.#calm = 0;
    } else if (++this.#calm >= CALM_POLLS) {
      this.#kvTarget = Math.min(KV_TARGET.ceiling, this.#kvTarget + KV_TARGET.recovery);
    }
  }
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}

import { AbortedError } from '../../core/errors/aborted-error.js';
import { ReplicaDownError } from './replica-down-error.js';
import { SimAccounting } from './sim-accounting.js';
import type { SimClock } from './sim-clock.js';
import type { SimProfile } from './sim-profile.js';
import { SimRequest, type ReplyPlan } from './sim-request.js';
import { SimScheduler, type SimBatch } from './sim-scheduler.js';
import { stepSeconds } from './step-time.js';

/** One engine step as it ran, with the replica's state after it. */
export interface SimStep {
  replica: number;
  /** 0, 1, 2 … per replica. */
  index: number;
  start: number;
  end: number;
  prefillTokens: number;
  decodeTokens: number;
  /** Requests the step computed tokens for. */
  requests: number;
  preemptions: number;
  running: number;
  waiting: number;
  kvUsage: number;
}

/** Where a replica is: serving, paused by a refit, or failed. */
export type SimEngineState = 'serving' | 'draining' | 'paused' | 'down' | 'closed';

/** What `pause` does with requests already in: `keep` freezes them where they are, `wait` lets them finish first (vLLM's `mode`). */
export type PauseMode = 'keep' | 'wait';

export interface SimEngineOptions {
  profile: SimProfile;
  clock: SimClock;
  /** Which replica of a fleet this is (in step records and errors; default 0). */
  replica?: number;
  /** The width of the busy timeline's buckets in simulated seconds (default 1). */
  timelineBucketSeconds?: number;
  /** Called after every step with the engine's state after it: a benchmark keeps a timeline here, a spec checks invariants. */
  onStep?: (step: SimStep, engine: SimEngine) => void;
}

/**
 * One simulated vLLM V1 engine: requests go in with their planned output ids, and come out one token
 * per step at simulated times set by the profile's step-time model. Steps run back to back while there
 * is work; each starts when the one before ended, or when its first request arrived after idle time, so
 * busy and idle time are exact whatever the wall clock does. Tokens are released when the clock
 * reaches the end of their step.
 */
export class SimEngine {
  readonly accounting: SimAccounting;
  readonly replica: number;
  readonly #scheduler: SimScheduler;
  readonly #profile: SimProfile;
  readonly #clock: SimClock;
  readonly #onStep: SimEngineOptions['onStep'];
  readonly #closing = new AbortController();
  #state: SimEngineState = 'serving';
  /** Requests numbered from this one on (submitted after a `wait`-mode pause began) wait for the resume. */
  #admitBelow = Infinity;
  /** When the last step ended: the engine's own time. */
  #lastEnd = 0;
  #nextId = 0;
  #steps = 0;
  #wake: (() => void) | undefined;
  /** A wake-up that came while the loop was not parked: the loop looks again instead of parking. */
  #woken = false;
  #stepDone: Promise<void> | undefined;
  #drained: (() => void) | undefined;

  constructor(options: SimEngineOptions) {
    this.#profile = options.profile;
    this.#clock = options.clock;
    this.replica = options.replica ?? 0;
    this.#onStep = options.onStep;
    this.accounting = new SimAccounting(options.timelineBucketSeconds);
    this.#scheduler = new SimScheduler(options.profile.engine);
    void this.#run();
  }

  get state(): SimEngineState {
    return this.#state;
  }

  /** The KV block pool (for audits). */
  get pool() {
    return this.#scheduler.pool;
  }

  get running(): readonly SimRequest[] {
    return this.#scheduler.running;
  }

  get waiting(): readonly SimRequest[] {
    return [...this.#scheduler.waiting];
  }

  get waitingCount(): number {
    return this.#scheduler.waiting.length;
  }

  /** Queues a request; its `changed` resolves as its tokens come out. A replica that is down refuses it. */
  submit(promptIds: readonly number[], reply: ReplyPlan): SimRequest {
    if (this.#state === 'down') throw new ReplicaDownError(this.replica);
    if (this.#state === 'closed') throw new AbortedError('the simulated fleet is closed');
    const request = new SimRequest(this.#nextId++, promptIds, reply, this.#clock.now(), this.#profile.engine.blockSize);
    this.#scheduler.waiting.pushBack(request);
    this.accounting.requestsSubmitted++;
    this.#wakeUp();
    return request;
  }

  /** Ends a request whose client left (vLLM's abort). */
  cancel(request: SimRequest): void {
    if (request.status === 'finished' || request.status === 'aborted') return;
    this.#scheduler.end(request, 'aborted');
    this.accounting.requestsEnded.abort++;
    request.notify();
    this.#wakeUp();
  }

  /** Ends a request that matched a stop string or stop id before its planned end, as finished. */
  stop(request: SimRequest): void {
    if (request.status === 'finished' || request.status === 'aborted') return;
    this.#scheduler.end(request, 'finished');
    this.accounting.requestsEnded.stop++;
    this.accounting.requestLatency.observe((request.lastTokenAt ?? this.#clock.now()) - request.arrival);
    request.notify();
    this.#wakeUp();
  }

  /**
   * Holds generation, as a weight refit does (vLLM's `POST /pause`): `keep` freezes every request where
   * it is once the step running ends; `wait` first lets the requests already in finish, holding new
   * ones. `clearCache` then forgets the prefix cache (blocks in use keep theirs). Resolves once paused.
   */
  async pause(mode: PauseMode = 'keep', clearCache = true): Promise<void> {
    if (this.#state === 'serving' || this.#state === 'draining') {
      if (mode === 'wait') {
        this.#admitBelow = Math.min(this.#admitBelow, this.#nextId);
        this.#state = 'draining';
        const drained = new Promise<void>((resolve) => (this.#drained = resolve));
        this.#wakeUp();
        await drained;
      } else {
        this.#state = 'paused';
        // A pause that was waiting for requests to finish is over too: nothing runs now.
        this.#finishDrain();
        await this.#stepDone;
      }
    }
    if (clearCache) this.#scheduler.pool.forgetFreeBlocks();
  }

  /** Generation goes on (vLLM's `POST /resume`). */
  resume(): void {
    if (this.#state !== 'paused' && this.#state !== 'draining') return;
    this.#restart();
  }

  /** The replica fails: every request in it ends with a `ReplicaDownError`, its KV cache is lost, and new requests are refused until `recover`. */
  fail(): void {
    if (this.#state === 'down' || this.#state === 'closed') return;
    this.#state = 'down';
    this.#endAll(new ReplicaDownError(this.replica));
    this.#scheduler.pool.forgetFreeBlocks();
    this.#finishDrain();
  }

  /** A failed replica is back, with an empty cache. */
  recover(): void {
    if (this.#state === 'down') this.#restart();
  }

  /** Stops the engine: requests still in it end with an `AbortedError`. */
  close(): void {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    this.#closing.abort(new AbortedError('the simulated fleet is closed'));
    this.#endAll(new AbortedError('the simulated fleet is closed'));
    this.#finishDrain();
    this.#wakeUp();
  }

  #restart(): void {
    // A pause still waiting for its requests to finish ends here, unpaused.
    this.#finishDrain();
    this.#state = 'serving';
    this.#admitBelow = Infinity;
    // The time held is idle time: the next step starts now, not when the last one ended.
    this.#lastEnd = Math.max(this.#lastEnd, this.#clock.now());
    this.#wakeUp();
  }

  #endAll(error: Error): void {
    for (const request of this.#scheduler.endAll('aborted')) {
      request.error = error;
      this.accounting.requestsEnded.abort++;
      request.notify();
    }
  }

  async #run(): Promise<void> {
    while (this.#state !== 'closed') {
      const stepping = this.#state === 'serving' || this.#state === 'draining';
      const ran = stepping && (await this.#step());
      if (ran) continue;
      if (this.#state === 'draining') this.#finishDrain();
      if (this.#woken) this.#woken = false;
      else await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  /** Runs one step if there is work; false when there is none. */
  async #step(): Promise<boolean> {
    const start = this.#startTime();
    if (start === undefined) return false;
    const batch = this.#scheduler.schedule(start, this.#admitBelow);
    this.accounting.preemptions += batch.preemptions;
    if (batch.scheduled.length === 0) return batch.preemptions > 0;
    const end = start + stepSeconds(this.#profile.stepTime, batch.prefillTokens, batch.decodeTokens);
    let done!: () => void;
    this.#stepDone = new Promise<void>((resolve) => (done = resolve));
    try {
      await this.#until(end);
    } finally {
      this.#stepDone = undefined;
      done();
    }
    if (this.#state === 'closed') return false;
    this.#finish(batch, start, end);
    return true;
  }

  /** When the next step starts: at the end of the last one while requests run, else when the first waiting request arrived; undefined with nothing to do. */
  #startTime(): number | undefined {
    if (this.#scheduler.running.length > 0) return this.#lastEnd;
    const next = this.#scheduler.waiting.peek();
    return next === undefined ? undefined : Math.max(this.#lastEnd, next.arrival);
  }

  /** Waits for the clock to reach `end`; when it already has (the engine is catching up), still lets I/O run between steps. */
  async #until(end: number): Promise<void> {
    const late = end <= this.#clock.now();
    await this.#clock.sleepUntil(end, this.#closing.signal).catch(() => undefined);
    if (late) await new Promise<void>((resolve) => setImmediate(resolve));
  }

  #finish(batch: SimBatch, start: number, end: number): void {
    const accounting = this.accounting;
    const outcome = this.#scheduler.complete(batch, end);
    this.#lastEnd = end;
    accounting.steps++;
    accounting.busySeconds += end - start;
    accounting.timeline.add(start, end);
    accounting.prefillTokens += batch.prefillTokens;
    accounting.prefixQueries += batch.prefixQueries;
    accounting.prefixHits += batch.prefixHits;
    const lag = Math.max(0, this.#clock.now() - end);
    accounting.maxReleaseLag = Math.max(accounting.maxReleaseLag, lag);
    accounting.totalReleaseLag += lag;
    for (const request of outcome.released) {
      accounting.generationTokens++;
      if (request.outputLength === 1) {
        accounting.promptTokens += request.promptLength;
        accounting.timeToFirstToken.observe(end - request.arrival);
      } else {
        accounting.interTokenLatency.observe(end - request.previousTokenAt!);
      }
    }
    for (const request of outcome.finished) {
      accounting.requestsEnded[request.reply.finish]++;
      accounting.requestLatency.observe(end - request.arrival);
    }
    for (const request of outcome.released) request.notify();
    this.#onStep?.(
      {
        replica: this.replica,
        index: this.#steps++,
        start,
        end,
        prefillTokens: batch.prefillTokens,
        decodeTokens: batch.decodeTokens,
        requests: batch.scheduled.length,
        preemptions: batch.preemptions,
        running: this.#scheduler.running.length,
        waiting: this.#scheduler.waiting.length,
        kvUsage: this.#scheduler.pool.usage,
      },
      this,
    );
  }

  #finishDrain(): void {
    const drained = this.#drained;
    this.#drained = undefined;
    if (this.#state === 'draining') this.#state = 'paused';
    drained?.();
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    if (wake) wake();
    else this.#woken = true;
  }
}

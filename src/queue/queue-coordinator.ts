import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { CollectJob } from '../collect/admission.js';
import type { RolloutTransport, TransportRun } from '../collect/rollout-transport.js';
import type { RolloutOutcome } from '../collect/sink.js';
import { AbortedError } from '../core/errors/aborted-error.js';
import type { MaterializedRow } from '../core/result-row.js';
import { readFullRow } from '../core/row-reader.js';
import { raceAbort } from '../util/race-abort.js';
import { jobId, QUEUE_NAME, QUEUE_PREFIX, type RunKeys, rolloutKey, runKeys } from './queue-keys.js';
import { QueueError } from './queue-error.js';
import { connectRedis } from './redis-connection.js';
import type { RedisTarget } from './redis-target.js';
import { ROLLOUT_JOB_NAME, type RolloutJob } from './rollout-job.js';
import { workersAlive } from './worker-heartbeats.js';

export interface QueueCoordinatorOptions {
  /**
   * How long a job may wait for its outcome before the coordinator looks whether it is still queued,
   * and enqueues it again if not (a Redis restarted from its AOF may have lost the last second of writes).
   */
  sweepMs?: number;
  /** How long a lost connection to Redis is retried before the run stops (default 30 s). */
  reconnectForMs?: number;
  /** A worker counts as alive while its last heartbeat is this recent (default 5 s). */
  heartbeatWindowMs?: number;
  /** Told when no worker is alive (at the start, or once the last one stopped): the rollouts wait for one. */
  onNotice?: (message: string) => void;
}

/** The options with their defaults. */
type CoordinatorSettings = Required<Omit<QueueCoordinatorOptions, 'onNotice'>> & QueueCoordinatorOptions;

/** A rollout enqueued and not yet back. */
interface Pending {
  row: MaterializedRow;
  since: number;
  resolve: (outcome: RolloutOutcome) => void;
  reject: (error: unknown) => void;
}

/** The run being coordinated: its id, keys and BullMQ queue. */
interface RunState {
  id: string;
  keys: RunKeys;
  queue: Queue;
}

/** How often the coordinator counts the workers alive and pops committed keys (ms; BLPOP takes seconds). */
const POLL_MS = 1000;

/**
 * `gymnast collect --queue`: the transport that hands collect's admitted rollouts to workers through
 * BullMQ and takes their outcomes back from Redis. Each rollout is one job whose id is the run's and the
 * rollout's key (re-adding it is a no-op); its outcome is committed once per key by the worker (see
 * `commitOutcome`), read here, written to the files by collect, and only then removed from Redis. A
 * coordinator that died finds on `--resume` the outcomes committed but not yet written.
 */
export class QueueCoordinator implements RolloutTransport {
  readonly #redis: Redis;
  readonly #blocking: Redis;
  readonly #options: CoordinatorSettings;
  readonly #shown: string;
  readonly #pending = new Map<string, Pending>();
  #run: RunState | undefined;
  #timers: NodeJS.Timeout[] = [];
  #stopped = false;
  #gone: QueueError | undefined;
  #listening: Promise<void> = Promise.resolve();
  /** Workers whose heartbeat is recent, as last counted (none before the first count). */
  workersAlive: number | undefined;

  private constructor(redis: Redis, blocking: Redis, options: CoordinatorSettings, shown: string) {
    this.#redis = redis;
    this.#blocking = blocking;
    this.#options = options;
    this.#shown = shown;
  }

  /** Connects (a Redis that cannot be reached is a `QueueError` naming the URL, credentials masked). */
  static async connect(target: RedisTarget, options: QueueCoordinatorOptions = {}): Promise<QueueCoordinator> {
    const settings = { sweepMs: 10_000, reconnectForMs: 30_000, heartbeatWindowMs: 5000, ...options };
    let coordinator: QueueCoordinator | undefined;
    const onGone = (error: QueueError) => {
      if (coordinator) coordinator.#fail(error);
    };
    const redis = await connectRedis(target, { reconnectForMs: settings.reconnectForMs, onGone });
    const blocking = await connectRedis(target, { reconnectForMs: settings.reconnectForMs, onGone }).catch((error: unknown) => {
      redis.disconnect();
      throw error;
    });
    coordinator = new QueueCoordinator(redis, blocking, settings, target.shown);
    return coordinator;
  }

  async start(run: TransportRun): Promise<void> {
    const keys = runKeys(run.runId);
    // A fresh start does not take up what an earlier start of the same run left: its outcomes are not in these files.
    if (run.fresh) await this.#redis.del(keys.rows, keys.results, keys.done, keys.errors);
    await this.#redis.set(keys.config, JSON.stringify(run.config));
    const queue = new Queue(QUEUE_NAME, { connection: this.#redis, prefix: QUEUE_PREFIX });
    // Connection errors are the connection's to report (`connectRedis`); an unheard 'error' event would crash the process.
    queue.on('error', () => undefined);
    this.#run = { id: run.runId, keys, queue };
    this.#listening = this.#listen(keys);
    this.#timers = [
      setInterval(() => void this.#sweep().catch((error: unknown) => this.#fail(asQueueError(error))), this.#options.sweepMs),
      setInterval(() => void this.#countWorkers().catch(() => undefined), POLL_MS),
    ];
    await this.#countWorkers();
  }

  async run(job: CollectJob, signal: AbortSignal): Promise<RolloutOutcome> {
    if (this.#gone) throw this.#gone;
    const { keys } = this.#running();
    const key = rolloutKey(job.row);
    // Waiting before looking: an outcome committed between the look and the wait is then not missed.
    const outcome = new Promise<RolloutOutcome>((resolve, reject) => this.#pending.set(key, { row: job.row, since: Date.now(), resolve, reject }));
    // Redis lost for good while the lookup below waits rejects it before it is awaited: handled here, thrown below.
    outcome.catch(() => undefined);
    const committed = await this.#redis.hget(keys.results, key);
    if (committed !== null) this.#settle(key, committed);
    else await this.#enqueue(key, job.row);
    return raceAbort(outcome, signal).catch((error: unknown) => {
      this.#pending.delete(key);
      throw signal.aborted ? new AbortedError('interrupted: rollouts still queued finish on the workers; --resume takes up their outcomes') : error;
    });
  }

  async written(job: CollectJob): Promise<void> {
    const { keys } = this.#running();
    const key = rolloutKey(job.row);
    await this.#redis.multi().hdel(keys.results, key).hdel(keys.rows, key).exec();
  }

  async finish(complete: boolean): Promise<void> {
    this.#stopped = true;
    for (const timer of this.#timers) clearInterval(timer);
    const run = this.#run;
    try {
      if (run && complete && !this.#gone) await this.#redis.del(run.keys.config, run.keys.rows, run.keys.results, run.keys.done, run.keys.errors);
      if (run && !this.#gone) await run.queue.close();
    } finally {
      await this.close();
    }
  }

  /** Closes the connections (`finish` does too): for a run that failed before it started. Idempotent. */
  async close(): Promise<void> {
    this.#stopped = true;
    this.#blocking.disconnect();
    await this.#listening;
    this.#redis.disconnect();
  }

  #running(): RunState {
    if (!this.#run) throw new Error('QueueCoordinator.run before start');
    return this.#run;
  }

  async #enqueue(key: string, row: MaterializedRow): Promise<void> {
    const { id, keys, queue } = this.#running();
    await this.#redis.hset(keys.rows, key, JSON.stringify(row));
    const data: RolloutJob = { run: id, key };
    await queue.add(ROLLOUT_JOB_NAME, data, { jobId: jobId(id, key), removeOnComplete: true, removeOnFail: 1000 });
  }

  /** Pops the keys workers committed and settles the rollouts waiting on them; a key nobody waits on is looked up when its rollout is admitted. */
  async #listen(keys: RunKeys): Promise<void> {
    while (!this.#stopped) {
      let popped: [string, string] | null;
      try {
        popped = await this.#blocking.blpop(keys.done, POLL_MS / 1000);
      } catch (error) {
        if (this.#stopped) return;
        this.#fail(asQueueError(error));
        return;
      }
      if (popped === null || !this.#pending.has(popped[1])) continue;
      const key = popped[1];
      const text = await this.#redis.hget(keys.results, key).catch(() => null);
      if (text !== null) this.#settle(key, text);
      else await this.#workerError(keys, key);
      // A worker just committed: counted none (it started after the last count), the count is stale, not a second away.
      if (this.workersAlive === 0) await this.#countWorkers().catch(() => undefined);
    }
  }

  /** A worker said why it could not run the rollout: the run stops with that reason (taken, so a resume starts clean). */
  async #workerError(keys: RunKeys, key: string): Promise<void> {
    const reason = await this.#redis.hget(keys.errors, key).catch(() => null);
    const pending = this.#pending.get(key);
    if (reason === null || !pending) return;
    this.#pending.delete(key);
    await this.#redis.hdel(keys.errors, key).catch(() => undefined);
    pending.reject(new QueueError(`rollout ${key} could not run: ${reason}`));
  }

  #settle(key: string, text: string): void {
    const pending = this.#pending.get(key);
    if (!pending) return;
    this.#pending.delete(key);
    try {
      const row: unknown = JSON.parse(text);
      // Checked as a row of the current schema; the row itself is written as the worker made it, key order and all.
      const { kind } = readFullRow(row, `Redis outcome of rollout ${key}`);
      pending.resolve({ kind, row } as RolloutOutcome);
    } catch (error) {
      pending.reject(error);
    }
  }

  /**
   * Each rollout waiting longer than `sweepMs` is looked up: a job that failed on a worker (not a failed
   * rollout: the worker itself could not run it) stops the run with its reason; a job that is gone
   * without an outcome (lost in a Redis restart) is enqueued again.
   */
  async #sweep(): Promise<void> {
    const { id, keys, queue } = this.#running();
    const now = Date.now();
    for (const [key, pending] of [...this.#pending]) {
      if (now - pending.since < this.#options.sweepMs) continue;
      const state = await queue.getJobState(jobId(id, key));
      if (state === 'failed') {
        const failed = await queue.getJob(jobId(id, key));
        // Removed, so that the run's --resume enqueues it afresh (an id still taken would make that a no-op).
        await failed?.remove();
        pending.reject(new QueueError(`rollout ${key} failed on a worker: ${failed?.failedReason ?? 'no reason recorded'}`));
        continue;
      }
      if (state !== 'unknown') continue;
      const text = await this.#redis.hget(keys.results, key);
      if (text !== null) this.#settle(key, text);
      else if (this.#pending.get(key) === pending) {
        pending.since = Date.now();
        await this.#enqueue(key, pending.row);
      }
    }
  }

  async #countWorkers(): Promise<void> {
    const count = await workersAlive(this.#redis, this.#options.heartbeatWindowMs);
    if (count === 0 && this.workersAlive !== 0)
      this.#options.onNotice?.(`no gymnast worker is alive on ${this.#shown}: the rollouts wait in the queue until one starts (gymnast worker --queue URL …)`);
    this.workersAlive = count;
  }

  /** Redis gone for good: every rollout waiting fails with the one error, and so does every later one. */
  #fail(error: QueueError): void {
    if (this.#gone || this.#stopped) return;
    this.#gone = error;
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }
}

function asQueueError(error: unknown): QueueError {
  return error instanceof QueueError ? error : new QueueError(`the queue failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { type Job, Worker } from 'bullmq';
import type { Agent } from '../collect/agent.js';
import { ConfigError } from '../core/errors/config-error.js';
import { readOwnMaterializedRow } from '../core/row-reader.js';
import { type JobControl, runJobs } from '../engine/index.js';
import type { Policy } from '../policy/policy.js';
import type { ConversationRenderer } from '../tokens/conversation-renderer.js';
import { AsyncQueue } from '../util/async-queue.js';
import { redactUrls } from '../util/redact-urls.js';
import { commitOutcome, reportWorkerError } from './commit-outcome.js';
import { QUEUE_NAME, QUEUE_PREFIX, runKeys } from './queue-keys.js';
import type { QueueError } from './queue-error.js';
import { connectRedis } from './redis-connection.js';
import type { RedisTarget } from './redis-target.js';
import { RolloutJob } from './rollout-job.js';
import { heartbeat, leave } from './worker-heartbeats.js';
import { readRunConfig, runEpisodeOptions, type RunConfig } from './run-config.js';

export interface QueueWorkerOptions {
  /** Rollouts in flight on this worker. */
  concurrency: number;
  policy: Policy;
  renderer: ConversationRenderer;
  /** The agent that runs a row of this name (built-in environments, resources servers), or none. */
  agent: (name: string) => Agent | undefined;
  /** How long a job's lock lasts without a heartbeat of its worker: a worker killed hard has its jobs run again after it. */
  stallTimeoutMs: number;
  /** How long a lost connection to Redis is retried before the worker stops (default 30 s). */
  reconnectForMs?: number;
  /** Takes no more jobs; those in hand finish and are committed (the first SIGTERM or Ctrl-C). */
  stop: AbortSignal;
  /** Abandons the jobs in hand: not committed, they run again elsewhere once their lock expires (the second). */
  abort: AbortSignal;
  onNotice?: (message: string) => void;
}

export interface QueueWorkerSummary {
  /** Outcomes this worker committed. */
  committed: number;
  /**
   * Jobs of a rollout that another run of the same job had committed first (a stalled job that ran
   * twice): found so before running it, or at the commit (or its run over by then), its outcome then dropped.
   */
  duplicates: number;
}

/** A job handed from BullMQ to the scheduler, with how to tell BullMQ it ended. */
interface Handed {
  data: unknown;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** How often a worker says it is alive (ms). */
const HEARTBEAT_MS = 1000;

/**
 * `gymnast worker`: takes rollout jobs from the queue, runs each through the same scheduler and episode
 * loop as `gymnast collect` (the run's settings, this worker's policy), and commits each outcome once
 * per key. It heartbeats while it runs, and returns once stopped: on `stop` after finishing the jobs in
 * hand, on `abort` at once, leaving them to run again elsewhere.
 */
export async function runQueueWorker(target: RedisTarget, options: QueueWorkerOptions): Promise<QueueWorkerSummary> {
  let gone: QueueError | undefined;
  const failed = new AbortController();
  const onGone = (error: QueueError) => {
    gone ??= error;
    failed.abort(error);
  };
  const reconnect = { reconnectForMs: options.reconnectForMs ?? 30_000, onGone };
  const redis = await connectRedis(target, reconnect);
  const name = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const handed = new AsyncQueue<Handed>();
  const summary: QueueWorkerSummary = { committed: 0, duplicates: 0 };
  const configs = new Map<string, RunConfig>();
  const worker = new Worker(QUEUE_NAME, (job: Job) => new Promise<void>((resolve, reject) => handed.push({ data: job.data, resolve, reject })), {
    connection: redis,
    prefix: QUEUE_PREFIX,
    name,
    concurrency: options.concurrency,
    lockDuration: options.stallTimeoutMs,
    stalledInterval: options.stallTimeoutMs,
    // Each hard-killed worker stalls its jobs once more: a job is given up on only after many.
    maxStalledCount: 100,
  });
  worker.on('error', () => undefined);
  const beat = () => heartbeat(redis, name).catch(() => undefined);
  await beat();
  const beating = setInterval(() => void beat(), HEARTBEAT_MS);
  const aborted = AbortSignal.any([options.abort, failed.signal]);
  const stopping = AbortSignal.any([options.stop, aborted]);
  const closed = closeOnStop(worker, handed, stopping, aborted);
  options.onNotice?.(`worker ${name} waiting for rollouts on ${target.shown}`);
  try {
    await runJobs(handed, { schedule: { kind: 'async', concurrency: options.concurrency }, signal: aborted }, async (item, control) => {
      try {
        await runOne(item.data, control);
        item.resolve();
      } catch (error) {
        // A rollout abandoned by the abort is neither completed nor failed: its lock expires and it runs again elsewhere.
        if (aborted.aborted) return;
        await report(item.data, error).then(item.resolve, item.reject);
      }
    });
    await closed;
  } finally {
    clearInterval(beating);
    await leave(redis, name).catch(() => undefined);
    redis.disconnect();
  }
  if (gone) throw gone;
  return summary;

  async function runOne(data: unknown, control: JobControl): Promise<void> {
    const job = RolloutJob.parse(data);
    const keys = runKeys(job.run);
    const config = await runConfig(job.run);
    // A run that is over needs nothing more: the job just ends.
    if (config === undefined) return;
    const text = await redis.hget(keys.rows, job.key);
    if (text === null || (await redis.hexists(keys.results, job.key))) {
      summary.duplicates += 1;
      return;
    }
    const row = readOwnMaterializedRow(JSON.parse(text), `Redis row of rollout ${job.key}`);
    const agent = options.agent(row.agent_ref.name);
    if (!agent)
      throw new ConfigError(
        `this worker has no agent "${row.agent_ref.name}": start it with the coordinator's --resources-server or --gymnasium-server ${row.agent_ref.name}=URL`,
      );
    const episode = runEpisodeOptions(job.run, config, options.policy, options.renderer);
    const outcome = await agent.run(row, { episode, control });
    if (aborted.aborted) return;
    const commit = await commitOutcome(redis, keys, job.key, JSON.stringify(outcome.row));
    // A run found over has written every key: this outcome is a duplicate too.
    if (commit === 'committed') summary.committed += 1;
    else summary.duplicates += 1;
  }

  /** This worker could not run the job (not a failed rollout): the coordinator is told why, and stops the run. */
  async function report(data: unknown, error: unknown): Promise<void> {
    const job = RolloutJob.parse(data);
    const reason = redactUrls(error instanceof Error ? error.message : String(error));
    options.onNotice?.(`rollout ${job.key} of run ${job.run}: ${reason}`);
    await reportWorkerError(redis, runKeys(job.run), job.key, `worker ${name}: ${reason}`);
  }

  /** A run's settings, read once; a run found over is not remembered as over, since the same command run afresh has the same id. */
  async function runConfig(runId: string): Promise<RunConfig | undefined> {
    const known = configs.get(runId);
    if (known) return known;
    const text = await redis.get(runKeys(runId).config);
    if (text === null) return undefined;
    const config = readRunConfig(runId, text);
    configs.set(runId, config);
    return config;
  }
}

/** Closes BullMQ's worker on the first stop (after its jobs in hand, or at once on an abort) and then the scheduler's source. */
function closeOnStop(worker: Worker, handed: AsyncQueue<Handed>, stopping: AbortSignal, aborted: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const close = async () => {
      await (aborted.aborted ? worker.close(true) : Promise.race([worker.close(), abortedPromise(aborted)]).then(() => worker.close(true)));
      handed.close();
      resolve();
    };
    if (stopping.aborted) void close();
    else stopping.addEventListener('abort', () => void close(), { once: true });
  });
}

function abortedPromise(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
}

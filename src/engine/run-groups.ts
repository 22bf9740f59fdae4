import type { EpisodeTask } from '../core/episode-task.js';
import type { EpisodeRecord } from '../core/rollout-record.js';
import { AbortedError } from '../core/errors/aborted-error.js';
import { AsyncQueue } from '../util/async-queue.js';
import { deadlineSignal } from '../util/deadline-signal.js';
import type { EpisodeOptions } from './episode-options.js';
import { runEpisode } from './run-episode.js';
import { TurnBarrier } from './turn-barrier.js';

/**
 * When turns are awaited; the episode loop is the same in both.
 * - `async` (default): each episode runs at its own pace, at most `concurrency` at once.
 * - `lockstep`: episodes run in batches of `concurrency`, and every turn waits for the batch's
 *   slowest episode (NeMo RL's synchronous rollout; kept for parity tests and to measure its cost).
 */
export interface Schedule {
  kind: 'async' | 'lockstep';
  concurrency: number;
}

export interface RunGroupsOptions {
  /** Episodes per task (GRPO's group size). */
  groupSize: number;
  schedule?: Schedule;
  /** Stops admitting episodes; episodes in flight end as `aborted` failures. */
  signal?: AbortSignal;
}

/** All episodes of one task, in rollout order. */
export interface EpisodeGroup {
  task: EpisodeTask;
  records: EpisodeRecord[];
}

interface Job {
  task: EpisodeTask;
  rolloutIndex: number;
  group: PendingGroup;
}

interface PendingGroup {
  task: EpisodeTask;
  records: (EpisodeRecord | undefined)[];
  remaining: number;
}

export const defaultSchedule: Schedule = { kind: 'async', concurrency: 32 };

/**
 * Runs `groupSize` episodes per task and yields each group as soon as all its members end, in
 * completion order. Tasks are read lazily, so memory follows the concurrency, not the task count.
 */
export async function* runGroups(
  tasks: Iterable<EpisodeTask> | AsyncIterable<EpisodeTask>,
  options: EpisodeOptions,
  run: RunGroupsOptions,
): AsyncGenerator<EpisodeGroup> {
  const schedule = run.schedule ?? defaultSchedule;
  if (!Number.isInteger(run.groupSize) || run.groupSize < 1) throw new RangeError(`groupSize must be a positive integer, got ${run.groupSize}`);
  if (!Number.isInteger(schedule.concurrency) || schedule.concurrency < 1) {
    throw new RangeError(`concurrency must be a positive integer, got ${schedule.concurrency}`);
  }
  const groups = new AsyncQueue<EpisodeGroup>();
  const jobs = expandJobs(tasks, run.groupSize);
  const settle = (job: Job, record: EpisodeRecord) => {
    job.group.records[job.rolloutIndex] = record;
    job.group.remaining -= 1;
    if (job.group.remaining === 0) groups.push({ task: job.group.task, records: job.group.records as EpisodeRecord[] });
  };
  // A consumer that stops iterating stops the run too: nothing keeps sampling for nobody.
  const stop = deadlineSignal(run.signal, undefined);
  const { signal } = stop;
  const drive = schedule.kind === 'lockstep' ? driveLockstep : driveAsync;
  drive(jobs, schedule.concurrency, options, signal, settle).then(
    () => groups.close(),
    (error: unknown) => groups.fail(error),
  );
  try {
    yield* groups;
  } finally {
    stop.abort(new AbortedError('the consumer stopped reading groups'));
    stop.dispose();
  }
}

async function* expandJobs(tasks: Iterable<EpisodeTask> | AsyncIterable<EpisodeTask>, groupSize: number): AsyncGenerator<Job> {
  for await (const task of tasks) {
    const group: PendingGroup = { task, records: new Array(groupSize).fill(undefined), remaining: groupSize };
    for (let rolloutIndex = 0; rolloutIndex < groupSize; rolloutIndex++) yield { task, rolloutIndex, group };
  }
}

type Settle = (job: Job, record: EpisodeRecord) => void;

async function driveAsync(jobs: AsyncGenerator<Job>, concurrency: number, options: EpisodeOptions, signal: AbortSignal, settle: Settle) {
  const worker = async () => {
    while (!signal.aborted) {
      const next = await jobs.next();
      if (next.done) return;
      const job = next.value;
      settle(job, await runEpisode(job.task, job.rolloutIndex, options, { signal }));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

async function driveLockstep(jobs: AsyncGenerator<Job>, batchSize: number, options: EpisodeOptions, signal: AbortSignal, settle: Settle) {
  while (!signal.aborted) {
    const batch: Job[] = [];
    while (batch.length < batchSize) {
      const next = await jobs.next();
      if (next.done) break;
      batch.push(next.value);
    }
    if (batch.length === 0) return;
    const barrier = new TurnBarrier(batch.length);
    await Promise.all(
      batch.map(async (job) => {
        const control = { signal, pace: () => barrier.arrive() };
        const record = await runEpisode(job.task, job.rolloutIndex, options, control).finally(() => barrier.leave());
        settle(job, record);
      }),
    );
  }
}

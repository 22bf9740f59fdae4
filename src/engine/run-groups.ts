import type { EpisodeTask } from '../core/episode-task.js';
import type { EpisodeRecord } from '../core/rollout-record.js';
import { AbortedError } from '../core/errors/aborted-error.js';
import { ConfigError } from '../core/errors/config-error.js';
import { AsyncQueue } from '../util/async-queue.js';
import { deadlineSignal } from '../util/deadline-signal.js';
import type { EpisodeOptions } from './episode-options.js';
import { runEpisode } from './run-episode.js';
import { defaultSchedule, runJobs, type Schedule } from './scheduler.js';

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
  rolloutIndex: number;
  group: PendingGroup;
}

interface PendingGroup {
  task: EpisodeTask;
  records: (EpisodeRecord | undefined)[];
  remaining: number;
}

/**
 * Runs `groupSize` episodes per task on the shared scheduler and yields each group as soon as all its
 * members end, in completion order. Tasks are read lazily, so memory follows the concurrency, not the
 * task count.
 */
export async function* runGroups(
  tasks: Iterable<EpisodeTask> | AsyncIterable<EpisodeTask>,
  options: EpisodeOptions,
  run: RunGroupsOptions,
): AsyncGenerator<EpisodeGroup> {
  if (!Number.isInteger(run.groupSize) || run.groupSize < 1) throw new ConfigError(`groupSize must be a whole number ≥ 1, got ${run.groupSize}`);
  const groups = new AsyncQueue<EpisodeGroup>();
  const settle = (job: Job, record: EpisodeRecord) => {
    job.group.records[job.rolloutIndex] = record;
    job.group.remaining -= 1;
    if (job.group.remaining === 0) groups.push({ task: job.group.task, records: job.group.records as EpisodeRecord[] });
  };
  // A consumer that stops iterating stops the run too: nothing keeps sampling for nobody.
  const stop = deadlineSignal(run.signal, undefined);
  runJobs(expandJobs(tasks, run.groupSize), { schedule: run.schedule ?? defaultSchedule, signal: stop.signal }, async (job, control) => {
    settle(job, await runEpisode(job.group.task, job.rolloutIndex, options, control));
  }).then(
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
    for (let rolloutIndex = 0; rolloutIndex < groupSize; rolloutIndex++) yield { rolloutIndex, group };
  }
}

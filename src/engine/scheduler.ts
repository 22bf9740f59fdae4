import { z } from 'zod';
import { ConfigError } from '../core/errors/config-error.js';
import { raceAbort } from '../util/race-abort.js';
import type { ConcurrencyLimit } from './concurrency-limit.js';
import { LimitGate } from './limit-gate.js';
import { TurnBarrier } from './turn-barrier.js';

/**
 * When turns are awaited; the episode loop is the same in both.
 * - `async` (default): each job runs at its own pace, at most `concurrency` at once.
 * - `lockstep`: jobs run in batches of `concurrency`, and every turn waits for the batch's slowest
 *   episode (NeMo RL's synchronous rollout; kept for parity tests and to measure its cost).
 */
export const Schedule = z.object({
  kind: z.enum(['async', 'lockstep']),
  /** Bounded: each unit is a worker, and a typo such as 1e9 must not exhaust memory. */
  concurrency: z.number().int().min(1).max(100_000),
});
export type Schedule = z.infer<typeof Schedule>;

export const defaultSchedule: Schedule = { kind: 'async', concurrency: 32 };

/** What a job gets from the schedule to run its episode with. */
export interface JobControl {
  /** Aborts the job: it should end (an episode ends as an `aborted` failure). */
  signal: AbortSignal;
  /** Awaited before every turn: the lockstep schedule's barrier, absent in the async schedule. */
  pace?: () => Promise<void>;
}

export interface SchedulerOptions {
  schedule: Schedule;
  /** Stops admitting jobs; those in flight finish (the first Ctrl-C). */
  stopAdmitting?: AbortSignal;
  /** Stops admitting and aborts the jobs in flight (the second Ctrl-C, a consumer that went away). */
  signal?: AbortSignal;
  /**
   * A limit that moves while the jobs run (`--concurrency auto`), async schedule only: at most
   * `limit.current` jobs run at once, and never more than `schedule.concurrency`.
   */
  limit?: ConcurrencyLimit;
}

/**
 * Runs jobs pulled lazily from `jobs` (so memory follows the concurrency, not the job count) under a
 * schedule. If a job throws, no more are admitted, the others in flight still finish (their results
 * are written), and then the error is thrown: one crash never discards finished work.
 */
export async function runJobs<Job>(
  jobs: AsyncIterable<Job> | Iterable<Job>,
  options: SchedulerOptions,
  run: (job: Job, control: JobControl) => Promise<void>,
): Promise<void> {
  const schedule = checkedSchedule(options.schedule);
  const signal = options.signal ?? new AbortController().signal;
  const admission = new Admission(jobs, [options.stopAdmitting, options.signal]);
  const { limit } = options;
  if (limit && schedule.kind !== 'async')
    throw new ConfigError('a concurrency that moves (concurrency auto) needs the async schedule: lockstep runs batches of one size');
  if (schedule.kind === 'async') {
    const gate = limit && new LimitGate(limit);
    try {
      await settleAll(
        Array.from({ length: schedule.concurrency }, gate ? () => limitedWorker(admission, gate, run, signal) : () => worker(admission, run, signal)),
      );
    } finally {
      gate?.close();
    }
    return;
  }
  for (let batch = await admission.take(schedule.concurrency); batch.length > 0; batch = await admission.take(schedule.concurrency)) {
    const barrier = new TurnBarrier(batch.length);
    await settleAll(batch.map((job) => admission.guard(run(job, { signal, pace: () => barrier.arrive() }).finally(() => barrier.leave()))));
  }
}

type Run<Job> = (job: Job, control: JobControl) => Promise<void>;

/** One unit of the async schedule's concurrency: runs jobs one after another until admission ends. */
async function worker<Job>(admission: Admission<Job>, run: Run<Job>, signal: AbortSignal): Promise<void> {
  const control: JobControl = { signal };
  for (let job = await admission.next(); job !== undefined; job = await admission.next()) {
    // Caught here, not by `guard`: a job waits in this frame anyway, and a promise more per job
    // in flight is memory held per episode (issue 26).
    try {
      await run(job.value, control);
    } catch (error) {
      admission.fail();
      throw error;
    }
  }
}

/** A worker under a limit that moves: it takes a job only with a place at the gate, and gives the place back when the job ends. */
async function limitedWorker<Job>(admission: Admission<Job>, gate: LimitGate, run: Run<Job>, signal: AbortSignal): Promise<void> {
  while (await gate.enter(admission.ended)) {
    try {
      const job = await admission.next();
      if (job === undefined) return;
      await admission.guard(run(job.value, { signal }));
    } finally {
      gate.leave();
    }
  }
}

function checkedSchedule(schedule: Schedule): Schedule {
  const parsed = Schedule.safeParse(schedule);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new ConfigError(`schedule.${issue.path.join('.')}: ${issue.message} (got ${JSON.stringify(schedule)})`);
}

/** The job source, closed to new jobs once a stop signal fires or a job has failed. */
class Admission<Job> {
  readonly #jobs: AsyncIterator<Job> | Iterator<Job>;
  readonly #stop: AbortSignal;
  #failed = false;
  /** Resolved once admission has ended: the source ran out, a stop fired, or a job failed. */
  readonly #ended: Promise<true>;
  #end!: () => void;

  constructor(jobs: AsyncIterable<Job> | Iterable<Job>, stops: readonly (AbortSignal | undefined)[]) {
    this.#jobs = Symbol.asyncIterator in jobs ? jobs[Symbol.asyncIterator]() : jobs[Symbol.iterator]();
    this.#stop = AbortSignal.any(stops.filter((stop): stop is AbortSignal => stop !== undefined));
    this.#ended = new Promise<true>((resolve) => (this.#end = () => resolve(true)));
    if (this.#stop.aborted) this.#end();
    else this.#stop.addEventListener('abort', () => this.#end(), { once: true });
  }

  get #open(): boolean {
    return !this.#failed && !this.#stop.aborted;
  }

  /** The next job, or undefined once admission closes: a stop fired while waiting on a slow source ends the wait. */
  async next(): Promise<{ value: Job } | undefined> {
    if (!this.#open) return undefined;
    const next = await raceAbort(Promise.resolve(this.#jobs.next()), this.#stop).catch((error: unknown) => {
      if (this.#stop.aborted) return undefined;
      throw error;
    });
    if (next === undefined || next.done || !this.#open) {
      this.#end();
      return undefined;
    }
    return { value: next.value };
  }

  /** Resolves once admission has ended: the source ran out, a stop fired, or a job failed. */
  get ended(): Promise<true> {
    return this.#ended;
  }

  async take(count: number): Promise<Job[]> {
    const batch: Job[] = [];
    while (batch.length < count) {
      const job = await this.next();
      if (job === undefined) break;
      batch.push(job.value);
    }
    return batch;
  }

  /** A failed job closes admission; the failure still reaches the caller. */
  guard(running: Promise<void>): Promise<void> {
    return running.catch((error: unknown) => {
      this.fail();
      throw error;
    });
  }

  /** A job failed: no more are admitted. */
  fail(): void {
    this.#failed = true;
    this.#end();
  }
}

/** Waits for every promise, then throws the first failure. */
async function settleAll(running: readonly Promise<void>[]): Promise<void> {
  const settled = await Promise.allSettled(running);
  const rejected = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (rejected) throw rejected.reason;
}

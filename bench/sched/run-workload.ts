import { SamplingParams, type EpisodeTask } from '../../src/core/index.js';
import type { EpisodeRecord } from '../../src/core/rollout-record.js';
import { type EpisodeOptions, runJobs, runEpisode } from '../../src/engine/index.js';
import type { ConcurrencyLimit } from '../../src/engine/concurrency-limit.js';
import type { Policy } from '../../src/policy/policy.js';
import type { ReplicaReport, SimClock } from '../../src/testing/index.js';
import type { ConversationRenderer } from '../../src/tokens/conversation-renderer.js';
import { type BenchFleet, PROFILE } from './bench-fleet.js';
import { FleetWorkloadEnvironment, type WorkloadShape } from './fleet-workload.js';

/** One workload run on a fleet: its tasks, their repeats, and how they are scheduled. */
export interface WorkloadRun {
  tasks: readonly EpisodeTask[];
  /** Rollouts per task (a GRPO group). */
  groupSize: number;
  shape: WorkloadShape;
  schedule: { kind: 'async' | 'lockstep'; concurrency: number };
  /** With `--concurrency auto`: the limit the controller moves (the async schedule's `concurrency` is then its ceiling). */
  limit?: ConcurrencyLimit;
  maxTokens: number;
  /** The policy to sample with (default the fleet's: a wrapper that counts what it sends, say). */
  policy?: Policy;
}

/** What a run did, in simulated seconds, and each replica's own account at its end. */
export interface WorkloadResult {
  /** When the last rollout ended. */
  makespan: number;
  /** When the last rollout started: from then on the fleet drains. */
  lastStart: number;
  records: EpisodeRecord[];
  reports: ReplicaReport[];
  /** Tokens decoded in each simulated second, over the fleet. */
  decoded: number[];
  /** Wall seconds the run took. */
  wallSeconds: number;
}

/** What a workload runs against: a policy over some fleet, its renderer, the fleet's clock, and its replicas' accounts. */
export interface WorkloadTarget {
  policy: Policy;
  renderer: ConversationRenderer;
  clock: SimClock;
  reports(): ReplicaReport[] | Promise<ReplicaReport[]>;
  /** Tokens decoded in each simulated second, when the fleet is in this process. */
  decoded?: readonly number[];
}

/** The fleet in this process as a workload's target. */
export const inProcess = (fleet: BenchFleet): WorkloadTarget => ({
  policy: fleet.policy,
  renderer: fleet.renderer,
  clock: fleet.clock,
  reports: () => fleet.sim.reports(),
  decoded: fleet.decoded,
});

/** Runs every rollout of `run` on the fleet through gymnast's scheduler and episode loop. */
export async function runWorkload(fleet: BenchFleet | WorkloadTarget, run: WorkloadRun): Promise<WorkloadResult> {
  const target = 'sim' in fleet ? inProcess(fleet) : fleet;
  const started = performance.now();
  const begin = target.clock.now();
  const options: EpisodeOptions = {
    policy: run.policy ?? target.policy,
    environment: new FleetWorkloadEnvironment(run.shape, target.clock),
    renderer: target.renderer,
    maxTurns: 16,
    maxSeqLen: PROFILE.maxModelLen,
    // Seeded turns: a reply depends on its prompt and seed alone, so every schedule gets the same replies.
    sampling: SamplingParams.parse({ max_tokens: run.maxTokens, seed: 26, temperature: 1 }),
  };
  const records: EpisodeRecord[] = [];
  let lastStart = 0;
  const jobs = run.tasks.flatMap((task) => Array.from({ length: run.groupSize }, (_, rollout) => ({ task, rollout })));
  await runJobs(jobs, { schedule: run.schedule, ...(run.limit ? { limit: run.limit } : {}) }, async ({ task, rollout }, control) => {
    lastStart = target.clock.now() - begin;
    records.push(await runEpisode(task, rollout, options, control));
  });
  return {
    makespan: target.clock.now() - begin,
    lastStart,
    records,
    reports: await target.reports(),
    decoded: [...(target.decoded ?? [])],
    wallSeconds: (performance.now() - started) / 1000,
  };
}

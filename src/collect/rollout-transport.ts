import type { CollectJob } from './admission.js';
import type { RolloutOutcome } from './sink.js';

/** What a transport is told when a run starts: enough for a worker elsewhere to run its rollouts as this process would. */
export interface TransportRun {
  /** Derived from the plan, the settings and the output: the same run resumed gets the same id (see `transportRunId`). */
  runId: string;
  /** A run started afresh: whatever an earlier run of the same id left on the transport is not this run's. */
  fresh: boolean;
  /** The settings that shape a rollout, as the run identity records them (`policy`, `sampling`, `max_turns`, …). */
  config: Record<string, unknown>;
}

/**
 * Runs the admitted rollouts somewhere else (a queue's workers on other machines) instead of in this
 * process. Planning, admission, the files and the aggregate stay collect's: the transport only carries
 * a planned row out and its outcome back.
 */
export interface RolloutTransport {
  start(run: TransportRun): Promise<void>;
  /** The outcome of one admitted rollout; rejects only when the transport itself failed (never for a failed rollout). */
  run(job: CollectJob, signal: AbortSignal): Promise<RolloutOutcome>;
  /** The outcome is in the files: the transport's copy of it may go. */
  written(job: CollectJob): Promise<void>;
  /** Called once, also when the run failed; `complete`: every planned rollout ended, so the run's state may go. */
  finish(complete: boolean): Promise<void>;
}

import type { FailureRow, ResultRow } from '../core/result-row.js';

/** How one planned rollout ended: a result row for the output, or a failure row for the sidecar. */
export type RolloutOutcome = { kind: 'result'; row: ResultRow } | { kind: 'failure'; row: FailureRow };

/** What a sink is told when a run starts. */
export interface SinkRun {
  /** The rollouts of the whole plan (a resumed run counts the ones done before too). */
  plannedRollouts: number;
  /** A resumed run continues what earlier runs wrote: a sink appends rather than starting afresh. */
  resumed: boolean;
  /** Of `plannedRollouts`, those that ended before this run and are not run again (a resumed run's); absent: none. */
  ended?: number;
}

/**
 * Where outcomes go as they end: the JSONL files first, later a queue or a gateway store, without
 * touching the pipeline. `write` is awaited before the rollout counts as done, so a sink that
 * cannot keep up slows admission instead of buffering.
 */
export interface Sink {
  start(run: SinkRun): Promise<void>;
  write(outcome: RolloutOutcome): Promise<void>;
  /** Flushes and closes; called once, also when the run fails. */
  finish(): Promise<void>;
}

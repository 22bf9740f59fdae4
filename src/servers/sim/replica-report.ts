import type { SimEngine, SimEngineState } from './sim-engine.js';
import type { FinishedReason } from './sim-accounting.js';

/** A replica's account at one moment, as JSON (`GET /sim/stats`) and to a benchmark in the same process. */
export interface ReplicaReport {
  replica: number;
  state: SimEngineState;
  /** Simulated seconds since the fleet started. */
  now: number;
  /** Simulated seconds its engine spent in steps: `busySeconds / now` is its utilization so far. */
  busySeconds: number;
  steps: number;
  running: number;
  waiting: number;
  kvCacheUsage: number;
  promptTokens: number;
  generationTokens: number;
  prefillTokens: number;
  prefixCacheQueries: number;
  prefixCacheHits: number;
  preemptions: number;
  requestsSubmitted: number;
  requestsEnded: Record<FinishedReason, number>;
  /** Simulated seconds the slowest step's tokens waited for the wall clock (see `SimAccounting.maxReleaseLag`). */
  maxReleaseLagSeconds: number;
  /** The mean of it over every step: near 0 while the process keeps up with the time scale. */
  meanReleaseLagSeconds: number;
  /** Busy fraction per bucket of `timelineBucketSeconds`, from time 0. */
  busyTimeline: number[];
  timelineBucketSeconds: number;
}

export function replicaReport(engine: SimEngine, now: number): ReplicaReport {
  const accounting = engine.accounting;
  return {
    replica: engine.replica,
    state: engine.state,
    now,
    busySeconds: accounting.busySeconds,
    steps: accounting.steps,
    running: engine.running.length,
    waiting: engine.waitingCount,
    kvCacheUsage: engine.pool.usage,
    promptTokens: accounting.promptTokens,
    generationTokens: accounting.generationTokens,
    prefillTokens: accounting.prefillTokens,
    prefixCacheQueries: accounting.prefixQueries,
    prefixCacheHits: accounting.prefixHits,
    preemptions: accounting.preemptions,
    requestsSubmitted: accounting.requestsSubmitted,
    requestsEnded: { ...accounting.requestsEnded },
    maxReleaseLagSeconds: accounting.maxReleaseLag,
    meanReleaseLagSeconds: accounting.steps === 0 ? 0 : accounting.totalReleaseLag / accounting.steps,
    busyTimeline: accounting.timeline.fractions(),
    timelineBucketSeconds: accounting.timeline.bucketSeconds,
  };
}

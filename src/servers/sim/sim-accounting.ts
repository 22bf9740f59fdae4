import { BusyTimeline } from './busy-timeline.js';
import { LatencyHistogram } from './latency-histogram.js';

// The buckets vLLM's own histograms use (vllm/v1/metrics/loggers.py), so dashboards read both alike.
const TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560];
const ITL_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80];
const REQUEST_LATENCY_BUCKETS = [0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680];

/** How a request left the engine, with vLLM's `finished_reason` names. */
export type FinishedReason = 'stop' | 'length' | 'abort';

/**
 * One replica's account of itself, in simulated seconds and tokens: what its `/metrics` serves and
 * what a benchmark reads (busy time, cache hits, preemptions). Only counters: a rate is two readings.
 */
export class SimAccounting {
  /** Engine steps run. */
  steps = 0;
  /** Simulated seconds spent in steps (the GPU busy); idle and paused time is the rest. */
  busySeconds = 0;
  /** Prompt tokens of requests that got their first token (vLLM's `prompt_tokens`, cached ones included). */
  promptTokens = 0;
  /** Output tokens released (vLLM's `generation_tokens`). */
  generationTokens = 0;
  /** Tokens prefilled: prompt tokens the cache did not have, and tokens recomputed after preemption. */
  prefillTokens = 0;
  /** Tokens looked up in the prefix cache, when requests were admitted (vLLM's `prefix_cache_queries`). */
  prefixQueries = 0;
  /** Of those, found (vLLM's `prefix_cache_hits`). */
  prefixHits = 0;
  /** Requests preempted (vLLM's `num_preemptions`). */
  preemptions = 0;
  requestsSubmitted = 0;
  /** Requests that left the engine, by how they ended (vLLM's `request_success`; `abort`: the client left or the replica failed). */
  readonly requestsEnded: Record<FinishedReason, number> = { stop: 0, length: 0, abort: 0 };
  /**
   * The longest a step's tokens waited, in simulated seconds, between the step's end and their release
   * (the wall clock's timer granularity times the time scale, or a process too busy to keep up).
   */
  maxReleaseLag = 0;
  /** The sum of every step's release lag: over `steps`, the mean. */
  totalReleaseLag = 0;
  readonly timeToFirstToken = new LatencyHistogram(TTFT_BUCKETS);
  readonly interTokenLatency = new LatencyHistogram(ITL_BUCKETS);
  readonly requestLatency = new LatencyHistogram(REQUEST_LATENCY_BUCKETS);
  readonly timeline: BusyTimeline;

  constructor(bucketSeconds = 1) {
    this.timeline = new BusyTimeline(bucketSeconds);
  }
}

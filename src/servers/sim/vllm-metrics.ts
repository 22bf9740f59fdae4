import type { SimEngine } from './sim-engine.js';
import { PrometheusText } from './prometheus-text.js';

/**
 * A replica's `/metrics` with the names, help texts, labels and buckets vLLM's V1 engine serves them
 * under (vLLM 0.11, vllm/v1/metrics/loggers.py: `model_name` and `engine` on every sample), so a
 * client that reads these reads a real vLLM alike. Deprecated names (`vllm:gpu_cache_usage_perc`,
 * `vllm:time_per_output_token_seconds`) are left out on purpose: a client must not come to depend on
 * them here and then miss them on a newer vLLM. Every value is in simulated time.
 */
export function vllmMetrics(engine: SimEngine, modelName: string): string {
  const labels = { model_name: modelName, engine: '0' };
  const accounting = engine.accounting;
  const one = (value: number) => [{ labels, value }];
  return new PrometheusText()
    .gauge('vllm:num_requests_running', 'Number of requests in model execution batches.', labels, engine.running.length)
    .gauge('vllm:num_requests_waiting', 'Number of requests waiting to be processed.', labels, engine.waitingCount)
    .gauge('vllm:kv_cache_usage_perc', 'KV-cache usage. 1 means 100 percent usage.', labels, engine.pool.usage)
    .counter('vllm:prefix_cache_queries', 'Prefix cache queries, in terms of number of queried tokens.', one(accounting.prefixQueries))
    .counter('vllm:prefix_cache_hits', 'Prefix cache hits, in terms of number of cached tokens.', one(accounting.prefixHits))
    .counter('vllm:num_preemptions', 'Cumulative number of preemption from the engine.', one(accounting.preemptions))
    .counter('vllm:prompt_tokens', 'Number of prefill tokens processed.', one(accounting.promptTokens))
    .counter('vllm:generation_tokens', 'Number of generation tokens processed.', one(accounting.generationTokens))
    .counter(
      'vllm:request_success',
      'Count of successfully processed requests.',
      (['stop', 'length', 'abort'] as const).map((reason) => ({ labels: { ...labels, finished_reason: reason }, value: accounting.requestsEnded[reason] })),
    )
    .histogram('vllm:time_to_first_token_seconds', 'Histogram of time to first token in seconds.', labels, accounting.timeToFirstToken)
    .histogram('vllm:inter_token_latency_seconds', 'Histogram of inter-token latency in seconds.', labels, accounting.interTokenLatency)
    .histogram('vllm:e2e_request_latency_seconds', 'Histogram of e2e request latency in seconds.', labels, accounting.requestLatency)
    .toString();
}

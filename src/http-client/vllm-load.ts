import { ConfigError } from '../core/errors/config-error.js';
import { ServerError } from '../core/errors/server-error.js';
import { redactUrls } from '../util/redact-urls.js';
import type { JsonClient } from './json-client.js';
import { prometheusSums } from './prometheus-sums.js';
import { requestUrl } from './request-url.js';

/** How loaded one vLLM server is, from its `/metrics`: gauges now, counters since it started. */
export interface VllmLoad {
  /** `vllm:num_requests_running`: requests in its batch. */
  running: number;
  /** `vllm:num_requests_waiting`: requests queued for the batch. */
  waiting: number;
  /** `vllm:kv_cache_usage_perc` (`vllm:gpu_cache_usage_perc` before vLLM 0.10): the fraction of KV blocks in use, 0 to 1. */
  kvCacheUsage: number;
  /** `vllm:num_preemptions_total`: requests preempted (their KV freed, recomputed later). */
  preemptions: number;
  /** `vllm:generation_tokens_total`: tokens generated; a server that holds requests and makes none is paused or stuck. */
  generationTokens: number;
}

/**
 * The metric names a `VllmLoad` is read from, as vLLM's V1 engine serves them (vllm/v1/metrics/loggers.py,
 * and the "Production Metrics" page of vLLM's docs): a counter with `_total`, as prometheus_client
 * writes it. The first name found is read.
 */
export const VLLM_LOAD_METRICS = {
  running: ['vllm:num_requests_running'],
  waiting: ['vllm:num_requests_waiting'],
  kvCacheUsage: ['vllm:kv_cache_usage_perc', 'vllm:gpu_cache_usage_perc'],
  preemptions: ['vllm:num_preemptions_total'],
  generationTokens: ['vllm:generation_tokens_total'],
} as const satisfies Record<keyof VllmLoad, readonly string[]>;

/**
 * Reads a vLLM server's load from its `/metrics`: request counts and counters summed over its engines,
 * KV usage their mean (each has its own cache). An error status is a `ServerError`; metrics without
 * one of these names (a server that is not vLLM) a `ConfigError` naming it; a failure to get an answer
 * comes as the client throws it.
 */
export async function readVllmLoad(client: JsonClient, baseUrl: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<VllmLoad> {
  const url = requestUrl(baseUrl, '/metrics');
  const reply = await client.exchange({
    method: 'GET',
    baseUrl,
    path: '/metrics',
    timeoutMs: options.timeoutMs,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (reply.status !== 200) throw new ServerError(url, reply.status, reply.text.slice(0, 200));
  const sums = prometheusSums(reply.text);
  const read = (names: readonly string[]) => {
    const found = names.map((name) => sums.get(name)).find((sum) => sum !== undefined);
    if (found === undefined) throw new ConfigError(`${redactUrls(url)} serves no ${names.join(' or ')}: --concurrency auto reads a vLLM server's metrics`);
    return found;
  };
  const kv = read(VLLM_LOAD_METRICS.kvCacheUsage);
  return {
    running: read(VLLM_LOAD_METRICS.running).sum,
    waiting: read(VLLM_LOAD_METRICS.waiting).sum,
    kvCacheUsage: kv.sum / kv.samples,
    preemptions: read(VLLM_LOAD_METRICS.preemptions).sum,
    generationTokens: read(VLLM_LOAD_METRICS.generationTokens).sum,
  };
}

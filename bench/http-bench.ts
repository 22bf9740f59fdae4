import { SamplingParams } from '../src/core/index.js';
import { RemotePolicy, vllmCompletionsBackend, type PolicyRequest } from '../src/policy/index.js';
import { loadHfTokenizer } from '../src/tokens/index.js';
import { qwen3Directory } from '../test/support/qwen3.js';
import type { BenchResult } from './bench-result.js';
import { withTestServer } from './test-server-child.js';

const IN_FLIGHT = 256;
const REQUESTS = 4_000;

/** Runs `send` REQUESTS times with IN_FLIGHT in flight; returns requests/s and client CPU ms per request. */
async function measure(send: (i: number) => Promise<unknown>): Promise<{ perSecond: number; cpuMs: number }> {
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < REQUESTS) await send(next++);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { perSecond: REQUESTS / seconds, cpuMs: (used.user + used.system) / 1000 / REQUESTS };
}

const request = (i: number): PolicyRequest => ({
  session_id: `s${i}`,
  prompt_token_ids: Array.from({ length: 200 }, (_, j) => 1000 + ((i + j) % 500)),
  messages: [],
  sampling: SamplingParams.parse({ max_tokens: 16, seed: i }),
  stop_strings: [],
  stop_token_ids: [],
});

/** gymnast's client (undici pool + router + zod) against global fetch, both at 256 in flight on the same server. */
export async function httpClientThroughput(): Promise<BenchResult[]> {
  return withTestServer(async (url) => {
    const policy = new RemotePolicy({ backend: vllmCompletionsBackend, urls: [url], tokenizer: await loadHfTokenizer(qwen3Directory), model: 'm', maxModelLen: 32_768 });
    const signal = new AbortController().signal;
    await measure((i) => policy.generate(request(i), signal)); // warm-up: JIT, connections
    const gymnast = await measure((i) => policy.generate(request(i), signal));
    await policy.close();
    const fetchRun = await measure(async (i) => {
      const response = await fetch(`${url}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(vllmCompletionsBackend.toWire(request(i), 'm')) });
      return response.json();
    });
    return [
      { name: `HTTP client: requests/s at ${IN_FLIGHT} in flight (test server in another process)`, baseline: { label: 'global fetch', value: fetchRun.perSecond, unit: 'req/s' }, measured: { label: 'gymnast RemotePolicy', value: gymnast.perSecond, unit: 'req/s' }, lowerIsBetter: false },
      { name: 'HTTP client: client CPU per request', baseline: { label: 'global fetch', value: fetchRun.cpuMs, unit: 'ms' }, measured: { label: 'gymnast RemotePolicy', value: gymnast.cpuMs, unit: 'ms' }, lowerIsBetter: true },
    ];
  });
}

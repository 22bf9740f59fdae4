import { SamplingParams } from '../src/core/index.js';
import { RemotePolicy, vllmCompletionsBackend, type PolicyRequest } from '../src/policy/index.js';
import { loadHfTokenizer } from '../src/tokens/index.js';
import { qwen3Directory } from '../test/support/qwen3.js';
import type { BenchResult } from './bench-result.js';
import { withTestServer } from './test-server-child.js';

const IN_FLIGHT = 256;
const REQUESTS = 4_000;
const ROUNDS = 3;

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

/**
 * gymnast's client (undici pool + router + zod) against global fetch, both at 256 in flight on the
 * same server, each warmed on the same requests first (JIT, connections). Alternating rounds, the
 * best of each kept: on a shared machine, the run least disturbed.
 */
export async function httpClientThroughput(): Promise<BenchResult[]> {
  return withTestServer(async (url) => {
    const policy = new RemotePolicy({
      backend: vllmCompletionsBackend,
      urls: [url],
      tokenizer: await loadHfTokenizer(qwen3Directory),
      model: 'm',
      maxModelLen: 32_768,
    });
    const signal = new AbortController().signal;
    const viaGymnast = (i: number) => policy.generate(request(i), signal);
    const viaFetch = async (i: number) => {
      const response = await fetch(`${url}/v1/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(vllmCompletionsBackend.toWire(request(i), 'm')),
      });
      return response.json();
    };
    await measure(viaGymnast);
    await measure(viaFetch);
    const best = { gymnast: { perSecond: 0, cpuMs: Infinity }, fetch: { perSecond: 0, cpuMs: Infinity } };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [side, send] of [
        ['gymnast', viaGymnast],
        ['fetch', viaFetch],
      ] as const) {
        const run = await measure(send);
        best[side] = { perSecond: Math.max(best[side].perSecond, run.perSecond), cpuMs: Math.min(best[side].cpuMs, run.cpuMs) };
      }
    }
    await policy.close();
    const rounds = `each warmed on ${REQUESTS.toLocaleString('en')} requests, then the best of ${ROUNDS} alternating rounds`;
    return [
      {
        name: `HTTP client: requests/s at ${IN_FLIGHT} in flight (test server in another process; ${rounds})`,
        baseline: { label: 'global fetch', value: best.fetch.perSecond, unit: 'req/s' },
        measured: { label: 'gymnast RemotePolicy', value: best.gymnast.perSecond, unit: 'req/s' },
        lowerIsBetter: false,
      },
      {
        name: `HTTP client: client CPU per request (${rounds})`,
        baseline: { label: 'global fetch', value: best.fetch.cpuMs, unit: 'ms' },
        measured: { label: 'gymnast RemotePolicy', value: best.gymnast.cpuMs, unit: 'ms' },
        lowerIsBetter: true,
      },
    ];
  });
}

import { EmbeddedPolicy } from '../src/policy/index.js';
import { embeddedModelServer } from '../src/servers/openai-compatible/embedded-model-server.js';
import type { HfTokenizer } from '../src/tokens/index.js';
import type { BenchResult } from './bench-result.js';

const TOKENS = 100;
const RUNS = 20;

/**
 * `serve model --embedded` streaming a 100-token chat answer: when its first text arrives, against when
 * the answer is done (the median of 20 runs of each). Streamed as sampled, the first text comes within a
 * tenth of the whole (target ≤ 0.10×); replayed after the generation, at the end. The tokenizer is told
 * of no end token so the answer runs its 100 tokens (the model itself ends a sum after three).
 */
export async function streamFirstText(): Promise<BenchResult> {
  const loaded = await EmbeddedPolicy.load();
  const tokenizer = loaded.tokenizer as HfTokenizer;
  const endless = { encode: (text: string) => tokenizer.encode(text), decode: (ids: readonly number[]) => tokenizer.decode(ids), stopTokenIds: [], vocabSize: tokenizer.vocabSize, maxCharsPerToken: tokenizer.maxCharsPerToken, config: tokenizer.config } as unknown as HfTokenizer;
  const policy = new EmbeddedPolicy(loaded.model, endless);
  const server = embeddedModelServer(policy, {});
  const url = await server.start();
  const body = JSON.stringify({ messages: [{ role: 'user', content: 'what is 23+45?' }], max_tokens: TOKENS, seed: 5, stream: true });
  const firsts: number[] = [];
  const totals: number[] = [];
  try {
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      const response = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const decoder = new TextDecoder();
      let first: number | undefined;
      for await (const bytes of response.body!) {
        if (first === undefined && /"content":"[^"]/.test(decoder.decode(bytes as Uint8Array, { stream: true }))) first = performance.now() - started;
      }
      totals.push(performance.now() - started);
      firsts.push(first ?? Number.NaN);
    }
  } finally {
    await server.close();
    await policy.close();
  }
  return {
    name: `embedded model server: first streamed text of a ${TOKENS}-token chat answer vs the whole answer (target ≤ 0.10×)`,
    baseline: { label: 'whole answer', value: median(totals), unit: 'ms' },
    measured: { label: 'first text', value: median(firsts), unit: 'ms' },
    lowerIsBetter: true,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

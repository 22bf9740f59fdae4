import { fileURLToPath } from 'node:url';
import type { BenchResult } from './bench-result.js';
import { withTestServer } from './test-server-child.js';

const TOKENS = 100;
const RUNS = 30;

/**
 * `serve model --embedded` (in its own process) streaming a 100-token chat answer: when its first byte
 * and its first text arrive at the client, against when the whole answer has (medians of 30 runs,
 * after a warm-up). Replayed after the generation, as it was, both came at the end (1.00×); streamed as
 * sampled, the first byte comes as the request is taken and the first text with the first token, after
 * the prompt's prefill (target ≤ 0.10× for both). Each run asks another question, as different users
 * would: the prefix cache holds the template's opening they share, not the whole prompt.
 */
export async function streamFirstText(): Promise<BenchResult[]> {
  const script = fileURLToPath(new URL('./embedded-stream-process.ts', import.meta.url));
  const body = (run: number) => JSON.stringify({ messages: [{ role: 'user', content: `what is ${run + 50}+45?` }], max_tokens: TOKENS, seed: 5, stream: true });
  const { bytes, firsts, totals } = await withTestServer(
    async (url) => {
      const bytes: number[] = [];
      const firsts: number[] = [];
      const totals: number[] = [];
      for (let run = -3; run < RUNS; run++) {
        const started = performance.now();
        const response = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(run) });
        const headers = performance.now() - started;
        const decoder = new TextDecoder();
        let first = Number.NaN;
        for await (const bytes of response.body!) {
          if (Number.isNaN(first) && /"content":"[^"]/.test(decoder.decode(bytes as Uint8Array, { stream: true }))) first = performance.now() - started;
        }
        if (run < 0) continue;
        totals.push(performance.now() - started);
        bytes.push(headers);
        firsts.push(first);
      }
      return { bytes, firsts, totals };
    },
    { script },
  );
  const whole = { label: 'whole answer', value: median(totals), unit: 'ms' };
  return [
    {
      name: `embedded model server: first byte of a streamed ${TOKENS}-token chat answer vs the whole answer (target ≤ 0.10×)`,
      baseline: whole,
      measured: { label: 'first byte', value: median(bytes), unit: 'ms' },
      lowerIsBetter: true,
    },
    {
      name: `embedded model server: first streamed text of a ${TOKENS}-token chat answer vs the whole answer (target ≤ 0.10×)`,
      baseline: whole,
      measured: { label: 'first text', value: median(firsts), unit: 'ms' },
      lowerIsBetter: true,
    },
  ];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

import { join } from 'node:path';
import { collect } from '../src/collect/collect-run.js';
import { SamplingParams } from '../src/core/index.js';
import { writeDistinctArithmeticRows } from './distinct-arithmetic-rows.js';
import { instantAgent } from './instant-agent.js';
import { ScriptedPolicy } from '../src/testing/index.js';
import { CharTokenizer, PlainChatTemplate, TemplateRenderer } from '../src/tokens/index.js';

/**
 * One measurement in its own process, sampling peak RSS; prints `{rows, rollouts, peak_rss_mb, seconds}`.
 * - `episodes`: plan N input rows (check, materialize, hash) and run the first 2,000 rollouts through
 *   the episode loop with an instant policy;
 * - `all`: plan N rows × 4 repeats and run every rollout through an instant agent, so the pipeline
 *   itself (admission, scheduler, sinks, resume keys, streaming aggregation) is what is measured.
 */
const rows = Number(process.argv[2]);
const mode = process.argv[3] === 'all' ? 'all' : 'episodes';
const input = await writeDistinctArithmeticRows(rows, 'gymnast-memory-');

const sumOf = (question: string) => {
  const [a, b] = /(\d+)\+(\d+)/.exec(question)!.slice(1).map(Number);
  return a! + b!;
};

let peak = 0;
/** Peak before the aggregation at the end: the running pipeline alone. */
let runPeak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
const baseline = process.memoryUsage().rss;
const tokenizer = new CharTokenizer();
const stop = new AbortController();
const started = performance.now();
await collect({
  input,
  output: join(input, '..', 'out.jsonl'),
  concurrency: 64,
  policy: new ScriptedPolicy({ tokenizer, script: (request) => ({ text: String(sumOf(request.messages[0]!.content)) }) }),
  renderer: new TemplateRenderer(tokenizer, new PlainChatTemplate()),
  maxSeqLen: 512,
  maxTurns: 2,
  sampling: SamplingParams.parse({ max_tokens: 8 }),
  ...(mode === 'all'
    ? {
        numRepeats: 4,
        agents: new Map([['arithmetic', instantAgent]]),
        onProgress: (progress: { done: number; total: number }) => {
          if (progress.done === progress.total) runPeak = Math.max(peak, process.memoryUsage().rss);
        },
      }
    : {
        stopAdmitting: stop.signal,
        onProgress: (progress: { done: number }) => {
          if (progress.done >= 2_000) stop.abort();
        },
      }),
});
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().rss);
process.stdout.write(
  `${JSON.stringify({ rows, mode, peak_rss_mb: peak / 2 ** 20, run_peak_rss_mb: runPeak / 2 ** 20, baseline_rss_mb: baseline / 2 ** 20, seconds: (performance.now() - started) / 1000 })}\n`,
);

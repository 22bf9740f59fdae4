import { createWriteStream, mkdtempSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collect } from '../src/collect/collect-run.js';
import { SamplingParams } from '../src/core/index.js';
import { ScriptedPolicy } from '../src/testing/index.js';
import { CharTokenizer, PlainChatTemplate, TemplateRenderer } from '../src/tokens/index.js';

/**
 * One measurement in its own process: plan N input rows (check, materialize, hash) and run the first
 * 2,000 rollouts with an instant policy, sampling peak RSS. Prints `{rows, peak_rss_mb, seconds}`.
 */
const rows = Number(process.argv[2]);
const dir = mkdtempSync(join(tmpdir(), 'gymnast-memory-'));
const input = join(dir, 'in.jsonl');
const file = createWriteStream(input);
for (let i = 0; i < rows; i++) {
  const a = 10 + (i % 90);
  const b = 10 + ((i * 7) % 90);
  const line = `${JSON.stringify({ responses_create_params: { input: [{ role: 'user', content: `what is ${a}+${b}? (${i})` }] }, agent_ref: { name: 'arithmetic' }, problem: `${a}+${b}`, answer: a + b })}\n`;
  if (!file.write(line)) await once(file, 'drain');
}
file.end();
await once(file, 'close');

const sumOf = (question: string) => {
  const [a, b] = /(\d+)\+(\d+)/.exec(question)!.slice(1).map(Number);
  return a! + b!;
};

let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
const baseline = process.memoryUsage().rss;
const tokenizer = new CharTokenizer();
const stop = new AbortController();
const started = performance.now();
await collect({
  input,
  output: join(dir, 'out.jsonl'),
  concurrency: 64,
  policy: new ScriptedPolicy({ tokenizer, script: (request) => ({ text: String(sumOf(request.messages[0]!.content)) }) }),
  renderer: new TemplateRenderer(tokenizer, new PlainChatTemplate()),
  maxSeqLen: 512,
  maxTurns: 2,
  sampling: SamplingParams.parse({ max_tokens: 8 }),
  stopAdmitting: stop.signal,
  onProgress: (progress) => {
    if (progress.done >= 2_000) stop.abort();
  },
});
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().rss);
process.stdout.write(`${JSON.stringify({ rows, peak_rss_mb: peak / 2 ** 20, baseline_rss_mb: baseline / 2 ** 20, seconds: (performance.now() - started) / 1000 })}\n`);

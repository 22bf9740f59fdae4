import { join } from 'node:path';
import { collect } from '../src/collect/collect-run.js';
import { SamplingParams } from '../src/core/index.js';
import { QueueCoordinator } from '../src/queue/queue-coordinator.js';
import { runQueueWorker } from '../src/queue/queue-worker.js';
import { redisTarget } from '../src/queue/redis-target.js';
import { ScriptedPolicy } from '../src/testing/index.js';
import { CharTokenizer, PlainChatTemplate, TemplateRenderer } from '../src/tokens/index.js';
import { writeDistinctArithmeticRows } from './distinct-arithmetic-rows.js';
import { instantAgent } from './instant-agent.js';

/**
 * One side of the queue's pipeline benchmark in its own process, every rollout answered at once by
 * `instantAgent`, so what is measured is the pipeline (and the queue), not an episode:
 * - `local ROLLOUTS`: one `collect` in this process; prints `{seconds, peak_rss_mb, run_peak_rss_mb}`;
 * - `coordinator ROLLOUTS URL WINDOW`: the same `collect` through the queue at URL; prints the same;
 * - `worker URL CONCURRENCY`: a worker with the instant agent, until SIGTERM.
 */
const [mode, ...args] = process.argv.slice(2);
const tokenizer = new CharTokenizer();
const policy = new ScriptedPolicy({ tokenizer, script: () => ({ text: '0' }) });
const renderer = new TemplateRenderer(tokenizer, new PlainChatTemplate());

if (mode === 'worker') {
  const stop = new AbortController();
  process.once('SIGTERM', () => stop.abort());
  await runQueueWorker(redisTarget(args[0]!), {
    concurrency: Number(args[1]),
    policy,
    renderer,
    agent: (name) => (name === instantAgent.name ? instantAgent : undefined),
    stallTimeoutMs: 30_000,
    stop: stop.signal,
    abort: new AbortController().signal,
  });
} else {
  const rollouts = Number(args[0]);
  const input = await writeDistinctArithmeticRows(rollouts / 4, 'gymnast-queue-bench-');
  const transport = mode === 'coordinator' ? await QueueCoordinator.connect(redisTarget(args[1]!)) : undefined;
  let peak = 0;
  let runPeak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const started = performance.now();
  let ran = 0;
  await collect({
    input,
    output: join(input, '..', 'out.jsonl'),
    concurrency: transport ? Number(args[2]) : 64,
    policy,
    renderer,
    maxSeqLen: 512,
    maxTurns: 2,
    sampling: SamplingParams.parse({ max_tokens: 8 }),
    numRepeats: 4,
    agents: new Map([['arithmetic', instantAgent]]),
    ...(transport ? { transport } : {}),
    onProgress: (progress) => {
      if (progress.done === progress.total) {
        runPeak = Math.max(peak, process.memoryUsage().rss);
        ran = (performance.now() - started) / 1000;
      }
    },
  });
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  process.stdout.write(`${JSON.stringify({ rollouts, seconds: ran, peak_rss_mb: peak / 2 ** 20, run_peak_rss_mb: runPeak / 2 ** 20 })}\n`);
}

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collect } from '../src/collect/collect-run.js';
import { SamplingParams } from '../src/core/index.js';
import { RemotePolicy, vllmCompletionsBackend } from '../src/policy/index.js';
import { JinjaChatTemplate, loadHfTokenizer, TemplateRenderer } from '../src/tokens/index.js';
import { qwen3Directory } from '../test/support/qwen3.js';
import type { BenchResult } from './bench-result.js';
import { withTestServer } from './test-server-child.js';

const ROLLOUTS = 2048;

/**
 * `gymnast collect` against the test inference server (another process, zero latency), arithmetic rows
 * of two turns each: rollouts/s and client CPU per turn at concurrency 1, 64 and 1,024, against
 * sending the same number of generation requests with no collection around them.
 */
export async function collectOverhead(): Promise<BenchResult[]> {
  return withTestServer(async (url) => {
    const tokenizer = await loadHfTokenizer(qwen3Directory);
    const renderer = new TemplateRenderer(tokenizer, JinjaChatTemplate.fromConfig(tokenizer.config));
    const dir = mkdtempSync(join(tmpdir(), 'gymnast-bench-collect-'));
    const input = join(dir, 'in.jsonl');
    writeFileSync(input, Array.from({ length: ROLLOUTS }, (_, i) => JSON.stringify({ responses_create_params: { input: [{ role: 'user', content: `what is ${10 + (i % 90)}+${11 + (i % 80)}?` }] }, agent_ref: { name: 'arithmetic' }, problem: `${10 + (i % 90)}+${11 + (i % 80)}`, answer: 21 + (i % 90) + (i % 80) })).join('\n'));
    const results: BenchResult[] = [];
    let baselinePerSecond = 0;
    for (const concurrency of [1, 64, 1024]) {
      const policy = new RemotePolicy({ backend: vllmCompletionsBackend, urls: [url], model: 'm', maxModelLen: 32_768 });
      const cpu = process.cpuUsage();
      const started = performance.now();
      const summary = await collect({ input, output: join(dir, `out-${concurrency}.jsonl`), concurrency, policy, renderer, maxSeqLen: 4096, maxTurns: 2, sampling: SamplingParams.parse({ max_tokens: 16, seed: 1 }) });
      const seconds = (performance.now() - started) / 1000;
      const used = process.cpuUsage(cpu);
      await policy.close();
      const turns = summary.rollouts * 2;
      if (concurrency === 1) baselinePerSecond = ROLLOUTS / seconds;
      results.push({
        name: `collect: rollouts/s at concurrency ${concurrency} (CPU ${((used.user + used.system) / 1000 / turns).toFixed(3)} ms per turn)`,
        baseline: { label: 'concurrency 1', value: baselinePerSecond, unit: 'rollouts/s' },
        measured: { label: `concurrency ${concurrency}`, value: ROLLOUTS / seconds, unit: 'rollouts/s' },
        lowerIsBetter: false,
      });
    }
    return results;
  });
}

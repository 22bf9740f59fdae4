import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Agent } from '../src/collect/agent.js';
import { collect } from '../src/collect/collect-run.js';
import { resourcesAgent } from '../src/collect/resources-agent.js';
import { SamplingParams } from '../src/core/index.js';
import { RemotePolicy, vllmCompletionsBackend } from '../src/policy/index.js';
import { JinjaChatTemplate, loadHfTokenizer, TemplateRenderer } from '../src/tokens/index.js';
import { qwen3Directory } from '../test/support/qwen3.js';
import type { BenchResult } from './bench-result.js';
import { withTestServer } from './test-server-child.js';

const ROLLOUTS = 1024;
const CONCURRENCY = 64;
/** Two turns a rollout: the tool call, then the answer. */
const TURNS_PER_ROLLOUT = 2;

const tools = [
  {
    type: 'function',
    name: 'increment_counter',
    description: '',
    parameters: { type: 'object', properties: { count: { type: 'integer', description: '' } }, required: ['count'], additionalProperties: false },
    strict: true,
  },
  {
    type: 'function',
    name: 'get_counter_value',
    description: '',
    parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
    strict: true,
  },
];

/**
 * The same counter task (NeMo Gym's example_session_state_mgmt: one tool call, then verify) run two
 * ways at concurrency 64, both against the test model in another process: against the ported
 * resources server over loopback HTTP (seed_session, the tool, verify; the server in a third
 * process), and against the built-in in-process `session-counter` environment. Client CPU per turn
 * and rollouts/s.
 */
export async function resourcesOverhead(): Promise<BenchResult[]> {
  return withTestServer(
    (modelUrl) =>
      withTestServer(
        async (resourcesUrl) => {
          const tokenizer = await loadHfTokenizer(qwen3Directory);
          const renderer = new TemplateRenderer(tokenizer, JinjaChatTemplate.fromConfig(tokenizer.config));
          const dir = mkdtempSync(join(tmpdir(), 'gymnast-bench-resources-'));
          const run = async (agentName: string, agents?: ReadonlyMap<string, Agent>) => {
            const input = join(dir, `${agentName}.jsonl`);
            writeFileSync(
              input,
              Array.from({ length: ROLLOUTS }, (_, i) =>
                JSON.stringify({
                  responses_create_params: { input: [{ role: 'user', content: `add 3 to ${i} then stop` }], tools },
                  agent_ref: { name: agentName },
                  initial_count: i,
                  expected_count: i + 3,
                }),
              ).join('\n'),
            );
            const policy = new RemotePolicy({ backend: vllmCompletionsBackend, urls: [modelUrl], tokenizer, model: 'm', maxModelLen: 32_768 });
            const cpu = process.cpuUsage();
            const started = performance.now();
            const summary = await collect({
              input,
              output: join(dir, `${agentName}-out.jsonl`),
              concurrency: CONCURRENCY,
              policy,
              renderer,
              maxSeqLen: 4096,
              maxTurns: 4,
              sampling: SamplingParams.parse({ max_tokens: 32, seed: 1 }),
              ...(agents ? { agents } : {}),
            });
            const seconds = (performance.now() - started) / 1000;
            const used = process.cpuUsage(cpu);
            await policy.close();
            if (summary.rollouts !== ROLLOUTS)
              throw new Error(`${agentName}: ${summary.rollouts} of ${ROLLOUTS} rollouts succeeded (${summary.failures} failures)`);
            return { cpuMsPerTurn: (used.user + used.system) / 1000 / (ROLLOUTS * TURNS_PER_ROLLOUT), perSecond: ROLLOUTS / seconds };
          };
          const inProcess = await run('session-counter');
          const remote = resourcesAgent({ name: 'counter', urls: [resourcesUrl], protocol: 'resources' });
          const overHttp = await run('counter', new Map([['counter', remote]])).finally(() => remote.close());
          return [
            {
              name: `resources server: client CPU per turn at concurrency ${CONCURRENCY} (seed_session + tool + verify over loopback vs the in-process environment)`,
              baseline: { label: 'in-process', value: inProcess.cpuMsPerTurn, unit: 'ms/turn' },
              measured: { label: 'resources server', value: overHttp.cpuMsPerTurn, unit: 'ms/turn' },
              lowerIsBetter: true,
            },
            {
              name: `resources server: rollouts/s at concurrency ${CONCURRENCY}`,
              baseline: { label: 'in-process', value: inProcess.perSecond, unit: 'rollouts/s' },
              measured: { label: 'resources server', value: overHttp.perSecond, unit: 'rollouts/s' },
              lowerIsBetter: false,
            },
          ];
        },
        { script: fileURLToPath(new URL('./resources-server-process.ts', import.meta.url)) },
      ),
    { model: 'counter' },
  );
}

import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { blackjack } from '../../src/servers/resources/examples/blackjack.js';
import type { InferenceServer } from '../../src/testing/index.js';
import { startServers } from '../support/loopback-model.js';
import { qwen3Directory } from '../support/qwen3.js';
import { gymnast } from '../support/run-cli.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/nemo-gym/blackjack/${name}`, import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'gymnast-resume-nemo-gym-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const keys = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const row = JSON.parse(line) as Record<string, number>;
      return `${row._ng_task_index}:${row._ng_rollout_index}`;
    });

let runs = 0;
/**
 * A blackjack run as NeMo Gym's collector leaves it when stopped after three of its five rollouts: its
 * own materialized inputs and the first three of its own rollouts, and no `_run.json`.
 */
function nemoGymRun(): { output: string; materialized: string; rollouts: string } {
  const folder = join(dir, `${runs++}`);
  mkdirSync(folder);
  const output = join(folder, 'rollouts.jsonl');
  const materialized = join(folder, 'rollouts_materialized_inputs.jsonl');
  copyFileSync(fixture('example_rollouts_materialized_inputs.jsonl'), materialized);
  const rollouts = readFileSync(fixture('example_rollouts.jsonl'), 'utf8')
    .split('\n')
    .slice(0, 3)
    .map((line) => `${line}\n`)
    .join('');
  writeFileSync(output, rollouts);
  return { output, materialized, rollouts };
}

// NeMo Gym resumes from the materialized inputs and the output alone, running the planned rows whose
// (task, rollout) is not in the output yet: 002 rollout_collection.py run_from_config and _load_from_cache.
describe('--resume over a run NeMo Gym started, without _run.json (002 rollout_collection.py _load_from_cache)', () => {
  let model: InferenceServer;
  let server: { start(): Promise<string>; close(): Promise<void> };
  let url: string;
  before(async () => {
    [model] = (await startServers(1, { respond: () => 'I stand.\n<action>stand</action>' })) as [InferenceServer];
    server = blackjack().createServer({ port: 0 });
    url = await server.start();
  });
  after(() => Promise.all([model.close(), server.close()]));

  const resume = (output: string, ...args: string[]) =>
    gymnast(
      'collect',
      '--input',
      fixture('example.jsonl'),
      '--output',
      output,
      '--resume',
      '--policy',
      'vllm-completions',
      '--base-url',
      model.url,
      '--tokenizer',
      qwen3Directory,
      '--max-tokens',
      '32',
      ...args,
    );

  it('runs the planned rollouts not yet in the output, keeping its rows as they are, with a notice that the run identity could not be checked', async () => {
    const { output, materialized, rollouts } = nemoGymRun();
    const plan = readFileSync(materialized, 'utf8');

    const run = await resume(output, '--gymnasium-server', `blackjack_gymnasium_agent=${url}`);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /has no \S+rollouts_run\.json \(a run NeMo Gym started\): its run identity could not be checked/);
    assert.ok(readFileSync(output, 'utf8').startsWith(rollouts), "NeMo Gym's rows kept as they were");
    assert.deepEqual(keys(output), ['0:0', '0:1', '0:2', '0:3', '0:4']);
    assert.equal(readFileSync(materialized, 'utf8'), plan, 'the plan is read, not made again');
    assert.equal(existsSync(output.replace('.jsonl', '_run.json')), false, 'no identity recorded for a plan gymnast did not make');
  });

  it('refuses a plan whose agent nothing runs, naming the line, before anything is written', async () => {
    const { output, rollouts } = nemoGymRun();
    const run = await resume(output);
    assert.equal(run.code, 1, run.stderr);
    assert.match(
      run.stderr,
      /rollouts_materialized_inputs\.jsonl:1: agent_ref\.name: unknown agent "blackjack_gymnasium_agent" .*--agent-server blackjack_gymnasium_agent=URL/,
    );
    assert.equal(readFileSync(output, 'utf8'), rollouts);
  });
});

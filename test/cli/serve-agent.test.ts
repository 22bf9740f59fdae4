import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';

const run = promisify(execFile);
const bin = new URL('../../bin/gymnast.js', import.meta.url).pathname;
const client = new URL('../fixtures/python/ng_collect_client.py', import.meta.url).pathname;
const examples = new URL('../../examples/arithmetic.jsonl', import.meta.url).pathname;

const child = spawn(
  process.execPath,
  [bin, 'serve', 'agent', '--env', 'arithmetic', '--port', '0', '--max-tokens', '24', '--max-turns', '4', '--concurrency', '16', '--seed', '7'],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const [line] = (await once(child.stdout, 'data')) as [Buffer];
const url = /at (http:\/\/\S+):/.exec(line.toString())![1]!;
after(() => child.kill('SIGTERM'));

const readJsonl = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((text) => JSON.parse(text) as Record<string, unknown>);

describe('gymnast serve agent, driven by a NeMo Gym-style collector (Python, standard library)', () => {
  it('binds to loopback and says where', () => {
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('runs every planned rollout once, with token fields and rewards, and its /aggregate_metrics agrees with gymnast aggregate over the same files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gymnast-serve-agent-'));
    const output = join(dir, 'rollouts.jsonl');
    const started = performance.now();
    await run('python3', [client, '--agent-url', url, '--input', examples, '--output', output, '--num-repeats', '4', '--concurrency', '16'], {
      timeout: 120_000,
    });
    const seconds = (performance.now() - started) / 1000;

    const planned = readJsonl(join(dir, 'rollouts_materialized_inputs.jsonl'));
    const rows = [...readJsonl(output), ...readJsonl(join(dir, 'rollouts_failures.jsonl'))];
    assert.equal(planned.length, 16 * 4);
    const keys = (list: Record<string, unknown>[]) => list.map((row) => `${row._ng_task_index}:${row._ng_rollout_index}`).sort();
    assert.deepEqual(keys(rows), keys(planned), 'every key once, success or failure');
    assert.deepEqual(
      planned.slice(0, 5).map((row) => [row._ng_task_index, row._ng_rollout_index]),
      [
        [0, 0],
        [0, 1],
        [0, 2],
        [0, 3],
        [1, 0],
      ],
      'aabbcc',
    );
    const successes = readJsonl(output);
    assert.ok(successes.length > 0);
    for (const row of successes) {
      assert.equal(typeof row.reward, 'number');
      assert.equal(row.has_training_tokens, true);
      assert.ok((row.messages as { generation_logprobs?: number[] }[]).some((message) => (message.generation_logprobs ?? []).length > 0));
    }

    const served = JSON.parse(readFileSync(join(dir, 'rollouts_aggregate_metrics.json'), 'utf8')) as {
      agent_ref: { name: string };
      key_metrics: Record<string, number>;
    }[];
    const recomputed = JSON.parse((await run(process.execPath, [bin, 'aggregate', '-i', output], { timeout: 60_000 })).stdout) as typeof served;
    assert.deepEqual(
      served.map((agent) => agent.agent_ref.name),
      ['arithmetic'],
    );
    assert.ok('mean/reward' in served[0]!.key_metrics && 'pass@4/accuracy' in served[0]!.key_metrics, JSON.stringify(served[0]!.key_metrics));
    assert.deepEqual(Object.keys(served[0]!.key_metrics).sort(), Object.keys(recomputed[0]!.key_metrics).sort());
    for (const [key, value] of Object.entries(served[0]!.key_metrics)) {
      assert.ok(Math.abs(value - recomputed[0]!.key_metrics[key]!) < 1e-9, `${key}: served ${value}, recomputed ${recomputed[0]!.key_metrics[key]}`);
    }
    process.stderr.write(
      `# ${planned.length} rollouts through /run at concurrency 16 in ${seconds.toFixed(2)} s (${(planned.length / seconds).toFixed(1)} rollouts/s, Python client start included)\n`,
    );
  });
});

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const bin = new URL('../../bin/gymnast.js', import.meta.url).pathname;
const fixture = (path: string) => new URL(`../fixtures/nemo-gym/${path}`, import.meta.url).pathname;

/** The blackjack run split into two shards, each with its materialized inputs beside it. */
function shards(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gymnast-aggregate-'));
  const lines = (path: string) => readFileSync(fixture(path), 'utf8').trim().split('\n');
  const rollouts = lines('blackjack/example_rollouts.jsonl');
  const materialized = lines('blackjack/example_rollouts_materialized_inputs.jsonl');
  for (const [name, from, to] of [['a', 0, 2], ['b', 2, 5]] as const) {
    writeFileSync(join(dir, `shard-${name}.jsonl`), `${rollouts.slice(from, to).join('\n')}\n`);
    writeFileSync(join(dir, `shard-${name}_materialized_inputs.jsonl`), `${materialized.slice(from, to).join('\n')}\n`);
  }
  return dir;
}

describe('gymnast aggregate and profile', () => {
  it("merges shards by glob and gives NeMo Gym's numbers for the whole run", async () => {
    const dir = shards();
    const { stdout } = await run(process.execPath, [bin, 'aggregate', '--input', join(dir, 'shard-*.jsonl')]);
    const [merged] = JSON.parse(stdout) as { agent_metrics: Record<string, number>; group_level_metrics: { num_rollouts: number; expected_num_rollouts: number }[] }[];
    const [expected] = JSON.parse(readFileSync(fixture('blackjack/example_rollouts_aggregate_metrics.json'), 'utf8')) as { agent_metrics: Record<string, number> }[];
    for (const [key, value] of Object.entries(expected!.agent_metrics)) assert.ok(Math.abs(merged!.agent_metrics[key]! - value) < 1e-9, key);
    assert.deepEqual(merged!.group_level_metrics.map((group) => [group.num_rollouts, group.expected_num_rollouts]), [[5, 5]]);
  });

  it('refuses a rollout that appears in two shards', async () => {
    const dir = shards();
    copyFileSync(join(dir, 'shard-a.jsonl'), join(dir, 'shard-c.jsonl'));
    await assert.rejects(run(process.execPath, [bin, 'aggregate', '--input', join(dir, 'shard-*.jsonl')]), /rollout 0:0 appears twice/);
  });

  it('writes the reward profile and refuses missing results unless partial profiles are allowed', async () => {
    const dir = shards();
    const args = ['profile', '--materialized', fixture('blackjack/example_rollouts_materialized_inputs.jsonl'), '--rollouts', join(dir, 'shard-a.jsonl')];
    await assert.rejects(run(process.execPath, [bin, ...args]), /3 planned rollouts have no result/);
    const { stdout } = await run(process.execPath, [bin, ...args, '--allow-partial']);
    assert.match(stdout, /expected 5 rollouts, completed 2, missing 3; tasks: 0 complete, 1 partial, 0 without results/);
    const [group] = readFileSync(join(dir, 'shard-a_reward_profiling.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { missing_num_rollouts: number });
    assert.equal(group!.missing_num_rollouts, 3);
  });
});

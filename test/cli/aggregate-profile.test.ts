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
const lines = (path: string) => readFileSync(path, 'utf8').trim().split('\n');
const gymnast = (...args: string[]) => run(process.execPath, [bin, ...args]);

/** The blackjack run split into two shards, each with its materialized inputs beside it. */
function shards(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gymnast-aggregate-'));
  const rollouts = lines(fixture('blackjack/example_rollouts.jsonl'));
  const materialized = lines(fixture('blackjack/example_rollouts_materialized_inputs.jsonl'));
  for (const [name, from, to] of [
    ['a', 0, 2],
    ['b', 2, 5],
  ] as const) {
    writeFileSync(join(dir, `shard-${name}.jsonl`), `${rollouts.slice(from, to).join('\n')}\n`);
    writeFileSync(join(dir, `shard-${name}_materialized_inputs.jsonl`), `${materialized.slice(from, to).join('\n')}\n`);
  }
  return dir;
}

interface Aggregate {
  agent_metrics: Record<string, number>;
  rollout_metrics: Record<string, number>;
  group_level_metrics: { num_rollouts: number; expected_num_rollouts: number }[];
}

describe('gymnast aggregate', () => {
  it("merges shards by glob and gives NeMo Gym's numbers for the whole run", async () => {
    const dir = shards();
    const { stdout } = await gymnast('aggregate', '--input', join(dir, 'shard-*.jsonl'));
    const [merged] = JSON.parse(stdout) as Aggregate[];
    const [expected] = JSON.parse(readFileSync(fixture('blackjack/example_rollouts_aggregate_metrics.json'), 'utf8')) as Aggregate[];
    for (const [key, value] of Object.entries(expected!.agent_metrics)) assert.ok(Math.abs(merged!.agent_metrics[key]! - value) < 1e-9, key);
    assert.deepEqual(
      merged!.group_level_metrics.map((group) => [group.num_rollouts, group.expected_num_rollouts]),
      [[5, 5]],
    );
  });

  it('writes the same JSON to --output, and counts the failures in the sidecars beside the shards', async () => {
    const dir = shards();
    const [first] = lines(join(dir, 'shard-b.jsonl'));
    const failed = JSON.parse(first!) as { _ng_rollout_index: number };
    writeFileSync(join(dir, 'shard-b_failures.jsonl'), `${JSON.stringify({ ...failed, _ng_rollout_index: 5, _ng_failure_class: 'transient' })}\n`);
    const { stdout } = await gymnast('aggregate', '--input', join(dir, 'shard-*.jsonl'));
    await gymnast('aggregate', '--input', join(dir, 'shard-*.jsonl'), '--output', join(dir, 'merged.json'));
    assert.equal(readFileSync(join(dir, 'merged.json'), 'utf8'), stdout);
    assert.equal((JSON.parse(stdout) as Aggregate[])[0]!.rollout_metrics.num_failures, 1);
  });

  it("reads older NeMo Gym rollout files without _ng_* indices as NeMo Gym numbers tasks: one per prompt, named by the materialized inputs' agent", async () => {
    const rollouts = fixture('example_single_tool_call/example_rollouts.jsonl');
    assert.ok(lines(rollouts).every((line) => !line.includes('"_ng_')));
    const { stdout } = await gymnast('aggregate', '--input', rollouts, '--rollout-infos');
    const [aggregate] = JSON.parse(stdout) as (Omit<Aggregate, 'group_level_metrics'> & {
      group_level_metrics: { _ng_task_index: number; num_rollouts: number; rollout_infos: { rollout_id: string }[] }[];
    })[];
    assert.equal(aggregate!.agent_metrics['mean/reward'], 1);
    assert.deepEqual(
      aggregate!.group_level_metrics.map((group) => [group._ng_task_index, group.num_rollouts]),
      [
        [0, 1],
        [1, 1],
        [2, 1],
        [3, 1],
        [4, 1],
      ],
    );
    assert.ok(!('pass@5/accuracy' in aggregate!.agent_metrics));
    const { stderr } = await gymnast('aggregate', '--input', fixture('circle_count/example_rollouts.jsonl'));
    assert.match(stderr, /^key metrics of 1 file:\ncircle_count_simple_agent \(rates in percent\)\n {2}mean\/reward +0\.600\n/, 'the table collect ends with');
  });

  it('refuses a file whose tasks cannot be told, naming the row and why, in one line for aggregate and health alike', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gymnast-aggregate-'));
    const rollouts = join(dir, 'bbq.jsonl');
    copyFileSync(fixture('bbq/example_rollouts.jsonl'), rollouts);
    const refusal = `gymnast: ambiguous-tasks: ${rollouts}:1: has no prompt (no input or instructions in responses_create_params) and no _ng_task_index: which task it ran cannot be told; give the rows _ng_task_index and _ng_rollout_index, or put the run's materialized inputs beside the file\n`;
    for (const args of [
      ['aggregate', '--input', rollouts],
      ['health', rollouts],
    ]) {
      await assert.rejects(gymnast(...args), (error: { code: number; stderr: string }) => {
        assert.equal(error.code, 1);
        assert.equal(error.stderr, refusal);
        return true;
      });
    }
  });

  it('refuses a rollout that appears in two shards, naming both places', async () => {
    const dir = shards();
    copyFileSync(join(dir, 'shard-a.jsonl'), join(dir, 'shard-c.jsonl'));
    await assert.rejects(gymnast('aggregate', '--input', join(dir, 'shard-*.jsonl')), (error: { stderr: string }) => {
      assert.match(error.stderr, new RegExp(`rollout 0:0 appears twice: ${join(dir, 'shard-a.jsonl')}:1 and ${join(dir, 'shard-c.jsonl')}:1`));
      return true;
    });
  });
});

describe('gymnast profile', () => {
  it('writes the reward profile and refuses missing results unless partial profiles are allowed', async () => {
    const dir = shards();
    const args = ['profile', '--materialized', fixture('blackjack/example_rollouts_materialized_inputs.jsonl'), '--rollouts', join(dir, 'shard-a.jsonl')];
    await assert.rejects(gymnast(...args), /3 planned rollouts have no result \(e\.g\. 0:2, 0:3, 0:4\)/);
    const { stdout } = await gymnast(...args, '--allow-partial');
    assert.match(stdout, /expected 5 rollouts, completed 2, missing 3; tasks: 0 complete, 1 partial, 0 without results/);
    const [group] = lines(join(dir, 'shard-a_reward_profiling.jsonl')).map(
      (line) => JSON.parse(line) as { missing_num_rollouts: number; num_rollouts: number },
    );
    assert.equal(group!.missing_num_rollouts, 3);
    assert.equal(group!.num_rollouts, 2);
  });

  it("gives each task its materialized row as the sample, and the agent metrics in NeMo Gym's flat layout", async () => {
    const dir = shards();
    const materialized = fixture('example_multi_turn_gymnasium/example_rollouts_materialized_inputs.jsonl');
    const rollouts = join(dir, 'gym.jsonl');
    copyFileSync(fixture('example_multi_turn_gymnasium/example_rollouts.jsonl'), rollouts);
    await gymnast('profile', '--materialized', materialized, '--rollouts', rollouts);
    const groups = lines(join(dir, 'gym_reward_profiling.jsonl')).map((line) => JSON.parse(line) as { _ng_task_index: number; sample: object });
    const planned = lines(materialized).map((line) => JSON.parse(line) as { _ng_task_index: number });
    assert.deepEqual(
      groups.map((group) => group._ng_task_index),
      [0, 1, 2, 3, 4],
    );
    groups.forEach((group, task) => {
      const { _ng_task_index: _task, _ng_rollout_index: _rollout, ...sample } = planned[task] as { _ng_task_index: number; _ng_rollout_index: number };
      assert.deepEqual(group.sample, sample);
    });
    const [agent] = JSON.parse(readFileSync(join(dir, 'gym_agent_metrics.json'), 'utf8')) as { [key: string]: unknown }[];
    assert.deepEqual(agent!.agent_ref, { name: 'example_multi_turn_gymnasium_agent' });
    assert.equal(agent!['mean/total_tokens'], 167.2);
  });

  it('profiles an older file without _ng_* indices, its rows matched to the materialized inputs as aggregate matches them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gymnast-profile-'));
    for (const name of ['example_rollouts.jsonl', 'example_rollouts_materialized_inputs.jsonl']) copyFileSync(fixture(`polymath/${name}`), join(dir, name));
    const { stdout } = await gymnast(
      'profile',
      '--materialized',
      join(dir, 'example_rollouts_materialized_inputs.jsonl'),
      '--rollouts',
      join(dir, 'example_rollouts.jsonl'),
    );
    assert.match(stdout, /expected 5 rollouts, completed 5, missing 0; tasks: 5 complete/);
    const groups = lines(join(dir, 'example_rollouts_reward_profiling.jsonl')).map(
      (line) => JSON.parse(line) as { _ng_task_index: number; 'mean/reward': number; sample: { expected_answer: string } },
    );
    assert.deepEqual(
      groups.map((group) => [group._ng_task_index, group.sample.expected_answer, group['mean/reward']]),
      [
        [0, '4', 1],
        [1, '7', 1],
        [2, '55', 0],
        [3, '30', 1],
        [4, '144', 1],
      ],
    );
  });

  it('refuses a result without a planned row and a rollout planned twice, naming file and line', async () => {
    const dir = shards();
    const materialized = join(dir, 'shard-a_materialized_inputs.jsonl');
    await assert.rejects(gymnast('profile', '--materialized', materialized, '--rollouts', join(dir, 'shard-b.jsonl')), (error: { stderr: string }) => {
      assert.match(error.stderr, new RegExp(`${join(dir, 'shard-b.jsonl')}:1: rollout 0:2 has no row in ${materialized}`));
      return true;
    });
    const [first] = lines(materialized);
    writeFileSync(materialized, `${readFileSync(materialized, 'utf8')}${first}\n`);
    await assert.rejects(gymnast('profile', '--materialized', materialized, '--rollouts', join(dir, 'shard-a.jsonl')), (error: { stderr: string }) => {
      assert.match(error.stderr, new RegExp(`planned rollout 0:0 appears twice: ${materialized}:1 and ${materialized}:3`));
      return true;
    });
  });
});

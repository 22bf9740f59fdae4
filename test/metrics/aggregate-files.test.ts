import assert from 'node:assert/strict';
import { createWriteStream, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { aggregateFiles } from '../../src/collect/aggregate-files.js';
import { writeAggregateFile } from '../../src/collect/write-aggregate-file.js';
import type { AgentAggregate } from '../../src/metrics/index.js';
import { unbiasedPassAtK } from '../../src/metrics/index.js';

const directory = () => mkdtempSync(join(tmpdir(), 'gymnast-aggregate-files-'));

function writeRows(path: string, rows: readonly object[]): string {
  writeFileSync(path, rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
  return path;
}

/** Large files without building them as one string. */
async function streamRows(path: string, count: number, row: (i: number) => object): Promise<string> {
  const file = createWriteStream(path);
  for (let i = 0; i < count; i++) if (!file.write(`${JSON.stringify(row(i))}\n`)) await once(file, 'drain');
  file.end();
  await once(file, 'close');
  return path;
}

/** A gymnast version-2 result row, or (`version: 1`) the same row as gymnast 0.1 and NeMo Gym wrote it. */
function result(task: number, rollout: number, fields: object = {}, options: { version?: 1 | 2; agent?: string } = {}): object {
  const row = {
    responses_create_params: { input: [{ role: 'user', content: `task ${task}` }] },
    agent_ref: { type: 'responses_api_agents', name: options.agent ?? 'agent' },
    _ng_task_index: task,
    _ng_rollout_index: rollout,
    response: {
      output: [],
      usage: { input_tokens: 10 + task, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5 + rollout, total_tokens: 15 + task + rollout },
    },
    reward: (task + rollout) % 2,
    terminated: true,
    ...fields,
  };
  return options.version === 1 ? row : { schema_version: 2, duration_ms: 100 + rollout, started_at: 1_795_000_000_000 + rollout, ...row };
}

function failure(task: number, rollout: number, options: { agent?: string } = {}): object {
  return {
    schema_version: 2,
    responses_create_params: {},
    agent_ref: { name: options.agent ?? 'agent' },
    _ng_task_index: task,
    _ng_rollout_index: rollout,
    duration_ms: 5,
    _ng_failure_class: 'timeout',
    error: { kind: 'timeout', name: 'RequestTimeoutError', message: 'slow' },
  };
}

function planned(task: number, rollout: number, fields: object = {}): object {
  return { responses_create_params: { input: [] }, agent_ref: { name: 'agent' }, _ng_task_index: task, _ng_rollout_index: rollout, ...fields };
}

/** An aggregate as plain data, its groups built. */
const plain = (aggregates: readonly AgentAggregate[]) =>
  JSON.parse(JSON.stringify(aggregates)) as (Omit<AgentAggregate, 'group_level_metrics'> & {
    group_level_metrics: { [key: string]: unknown; rollout_infos: { [key: string]: unknown }[] }[];
  })[];

describe('aggregateFiles', () => {
  it('aggregates 200,000 rollouts (NeMo Gym once died here: Math.max over a spread of every value)', async (context) => {
    const dir = directory();
    const results = await streamRows(join(dir, 'run.jsonl'), 200_000, (i) => result(i >> 2, i & 3));
    const started = performance.now();
    const [aggregate] = await aggregateFiles({ results: [results] });
    let groups = 0;
    for (const group of aggregate!.group_level_metrics) groups += group.num_rollouts === 4 ? 1 : 0;
    context.diagnostic(`200,000 rows aggregated in ${((performance.now() - started) / 1000).toFixed(2)} s`);
    assert.equal(groups, 50_000);
    assert.equal(aggregate!.agent_metrics['mean/reward'], 0.5);
    assert.equal(aggregate!.agent_metrics['max/total_tokens'], 15 + 49_999 + 3);
    assert.equal(aggregate!.agent_metrics['median/output_tokens'], 6.5);
    assert.equal(aggregate!.agent_metrics['pass@4/accuracy'], 100);
  });

  it('aggregates one task with 20,000 rollouts, every k from 1 to 20,000', async (context) => {
    const dir = directory();
    const rewards = (rollout: number) => (rollout % 5 === 0 ? 1 : 0);
    const results = await streamRows(join(dir, 'run.jsonl'), 20_000, (rollout) =>
      result(0, rollout, { reward: rewards(rollout), extracted_answer: String(rollout % 7) }),
    );
    const started = performance.now();
    const [aggregate] = await aggregateFiles({ results: [results] });
    const [group] = aggregate!.group_level_metrics;
    context.diagnostic(`20,000 rollouts of one task aggregated in ${((performance.now() - started) / 1000).toFixed(2)} s`);
    const metrics = aggregate!.agent_metrics as Record<string, number>;
    assert.equal(group!.num_rollouts, 20_000);
    assert.ok(Math.abs(metrics['pass@1/accuracy']! - 20) < 1e-9);
    assert.ok(Math.abs(metrics['pass@3/accuracy']! - 100 * unbiasedPassAtK(20_000, 4_000, 3)) < 1e-9);
    assert.equal(metrics['pass@20000/accuracy'], 100);
    assert.ok(Math.abs(metrics['pass@1[avg-of-20000]/accuracy']! - 20) < 1e-9);
    // Runs 0..4 score 100, 0, 0, 0, 0: mean 20, sample std √((80² + 4·20²) / 4).
    assert.ok(Math.abs(metrics['pass@1[avg-of-5]/accuracy/std_dev_across_runs']! - Math.sqrt(2000)) < 1e-9);
    assert.ok('majority@20000/accuracy' in metrics);
    assert.deepEqual(
      Object.keys(aggregate!.key_metrics).filter((key) => !key.startsWith('mean/')),
      [
        'pass@20000/accuracy',
        'pass@1[avg-of-20000]/accuracy',
        'majority@20000/accuracy',
        'pass@20000/no_answer',
        'pass@1[avg-of-20000]/no_answer',
        'majority@20000/no_answer',
      ],
    );
  });

  it('counts a failed rollout once however many attempts failed, and not at all once it succeeded', async () => {
    const dir = directory();
    const results = writeRows(join(dir, 'run.jsonl'), [result(0, 0), result(1, 0), failure(2, 0)]);
    const failures = writeRows(join(dir, 'run_failures.jsonl'), [failure(0, 0), failure(0, 0), failure(0, 1), failure(0, 1), failure(0, 1), failure(1, 1)]);
    const [aggregate] = await aggregateFiles({ results: [results], failures: [failures] });
    // 0:1 and 1:1 failed for good; 2:0 failed in the results file; 0:0 succeeded in the end.
    assert.equal(aggregate!.rollout_metrics.num_failures, 3);
  });

  it('refuses a rollout in two shards, naming both places', async () => {
    const dir = directory();
    const a = writeRows(join(dir, 'shard-a.jsonl'), [result(0, 0), result(0, 1)]);
    const b = writeRows(join(dir, 'shard-b.jsonl'), [result(1, 0), result(2, 0), result(0, 1)]);
    await assert.rejects(aggregateFiles({ results: [a, b] }), { message: `rollout 0:1 appears twice: ${a}:2 and ${b}:3` });
  });

  it('names the file, line and field of a row it cannot read', async () => {
    const dir = directory();
    const bad = writeRows(join(dir, 'run.jsonl'), [result(0, 0), result(0, 1, { reward: 'high' })]);
    await assert.rejects(aggregateFiles({ results: [bad] }), { message: `${bad}:2: reward: Invalid input: expected number, received string` });
    const garbled = join(dir, 'garbled.jsonl');
    writeFileSync(garbled, `${JSON.stringify(result(0, 0))}\n{"reward": \n`);
    await assert.rejects(aggregateFiles({ results: [garbled] }), new RegExp(`^ConfigError: ${garbled}:2: not valid JSON`));
  });

  it('aggregates version-1 rows (no schema_version: gymnast 0.1, NeMo Gym) exactly as version 2', async () => {
    const dir = directory();
    const rows = (version: 1 | 2) => [0, 1, 2].flatMap((task) => [0, 1, 2].map((rollout) => result(task, rollout, { num_turns: rollout + 1 }, { version })));
    const v1 = await aggregateFiles({ results: [writeRows(join(dir, 'v1.jsonl'), rows(1))] });
    const v2 = await aggregateFiles({ results: [writeRows(join(dir, 'v2.jsonl'), rows(2))] });
    assert.deepEqual(plain(v1), plain(v2));
    for (const bookkeeping of ['duration_ms', 'started_at', 'schema_version']) assert.ok(!(`mean/${bookkeeping}` in v2[0]!.agent_metrics), bookkeeping);
  });

  it('lists each rollout in its group only when asked (rollout_infos grow with the rollouts, the rest with tasks and metrics)', async () => {
    const dir = directory();
    const results = writeRows(join(dir, 'run.jsonl'), [result(0, 0), result(0, 1), result(1, 0)]);
    const [without] = plain(await aggregateFiles({ results: [results] }));
    assert.ok(without!.group_level_metrics.every((group) => !('rollout_infos' in group)));
    const [listed] = plain(await aggregateFiles({ results: [results], rolloutInfos: true }));
    assert.deepEqual(
      listed!.group_level_metrics.map((group) => group.rollout_infos.map((info) => info.rollout_id)),
      [['0:0', '0:1'], ['1:0']],
    );
  });

  it("measures the rollout's numbers, not the task's: task fields, _-fields and bookkeeping are left out", async () => {
    const dir = directory();
    const materialized = writeRows(join(dir, 'run_materialized_inputs.jsonl'), [
      planned(0, 0, { answer: 42, difficulty: 3 }),
      planned(0, 1, { answer: 42, difficulty: 3 }),
    ]);
    const echo = { answer: 42, difficulty: 3, _ng_attempt_index: 1, _private: 7, judge_score: 0.5, passed: false };
    const results = writeRows(join(dir, 'run.jsonl'), [result(0, 1, echo), result(0, 0, echo)]);
    const [withPlan] = plain(await aggregateFiles({ results: [results], materialized: [materialized], rolloutInfos: true }));
    const columns = (metrics: object) => Object.keys(metrics).filter((key) => key.startsWith('mean/'));
    assert.deepEqual(columns(withPlan!.agent_metrics), [
      'mean/reward',
      'mean/terminated',
      'mean/judge_score',
      'mean/passed',
      'mean/input_tokens',
      'mean/output_tokens',
      'mean/total_tokens',
    ]);
    assert.deepEqual(Object.keys(withPlan!.group_level_metrics[0]!.rollout_infos[0]!), [
      'rollout_id',
      '_ng_task_index',
      '_ng_rollout_index',
      'reward',
      'input_tokens',
      'output_tokens',
      'total_tokens',
      'terminated',
      'judge_score',
      'passed',
    ]);
    const [withoutPlan] = await aggregateFiles({ results: [results] });
    assert.equal(withoutPlan!.agent_metrics['mean/difficulty'], 3);
  });

  it('gives the same output whatever order the rows arrived in', async () => {
    const dir = directory();
    const rows = [result(1, 0, { extra: 1 }), result(0, 1), result(0, 0, { other: 2 }), result(1, 1)];
    const forward = await aggregateFiles({ results: [writeRows(join(dir, 'a.jsonl'), rows)] });
    const backward = await aggregateFiles({ results: [writeRows(join(dir, 'b.jsonl'), [...rows].reverse())] });
    assert.equal(JSON.stringify(forward), JSON.stringify(backward));
    assert.deepEqual(Object.keys(forward[0]!.agent_metrics).slice(0, 6), [
      'mean/reward',
      'mean/terminated',
      'mean/other',
      'mean/extra',
      'mean/input_tokens',
      'mean/output_tokens',
    ]);
  });

  it('adds majority@k and no_answer when rows carry extracted_answer, or for the answer key it is given', async () => {
    const dir = directory();
    const answered = writeRows(join(dir, 'answered.jsonl'), [result(0, 0, { extracted_answer: '4' }), result(0, 1, { extracted_answer: null })]);
    const plainRows = writeRows(join(dir, 'plain.jsonl'), [result(0, 0, { guess: 4 }), result(0, 1, { guess: 5 })]);
    const [auto] = await aggregateFiles({ results: [answered] });
    assert.equal(auto!.agent_metrics['majority@2/accuracy'], 100 * (result(0, 0) as { reward: number }).reward);
    assert.equal(auto!.agent_metrics['pass@1[avg-of-2]/no_answer'], 50);
    const [none] = await aggregateFiles({ results: [plainRows] });
    assert.ok(!Object.keys(none!.agent_metrics).some((key) => key.startsWith('majority@') || key.includes('no_answer')));
    const [explicit] = await aggregateFiles({ results: [plainRows], answerKey: 'guess' });
    assert.equal(explicit!.agent_metrics['pass@1[avg-of-2]/no_answer'], 0);
    assert.ok('majority@2/accuracy' in explicit!.agent_metrics);
  });

  it("computes NeMo RL's rollout metrics from gymnast's records, the sequence counted from the messages' token ids; a row without one (a NeMo Gym agent server's) counts as a sample with a reward", async () => {
    const dir = directory();
    const turn = (index: number, generated: number, env: number) => ({
      index,
      prompt_tokens: 0,
      generated_tokens: generated,
      env_tokens: env,
      finish_reason: { unified: 'stop' },
      reward: 0,
      observation_truncated: false,
      timing: { generation_ms: 1, env_ms: 1 },
    });
    const record = (kind: string, turns: object[], tokens: number[]) => ({
      termination: { kind },
      turns,
      messages: tokens.map((count) => ({ role: 'user', content: '', token_ids: Array.from({ length: count }, () => 1) })),
    });
    const results = writeRows(join(dir, 'run.jsonl'), [
      result(0, 0, { ...record('env-done', [turn(0, 4, 2)], [10, 4, 2]), reward: 1, reward_components: { correct: 1 } }),
      result(0, 1, { ...record('max-turns', [turn(0, 2, 1), turn(1, 6, 1)], [10, 2, 1, 6, 1]), reward: 0 }),
      result(1, 0, { reward: 0.5 }),
    ]);
    const [aggregate] = await aggregateFiles({ results: [results] });
    const metrics = aggregate!.rollout_metrics;
    assert.equal(metrics.num_samples, 3);
    assert.equal(metrics.num_samples_without_record, 1);
    assert.equal(metrics.mean_sequence_tokens_per_sample, (16 + 20) / 2, 'turns and tokens over the rows with a record');
    assert.equal(metrics.mean_total_tokens_per_sample, (6 + 10) / 2);
    assert.equal(metrics.natural_termination_rate, 0.5);
    assert.equal(metrics.max_turns_reached_rate, 0.5);
    assert.equal(metrics.mean_gen_tokens_per_sample, (4 + 8) / 2);
    assert.equal(metrics.mean_total_reward, (1 + 0 + 0.5) / 3, 'rewards over every sample');
    assert.equal(metrics['reward/correct'], 1 / 3);
  });

  it("writes NeMo Gym's layout, indented as JSON.stringify would, streaming the groups", async () => {
    const dir = directory();
    const results = writeRows(join(dir, 'run.jsonl'), [
      result(0, 0, {}, { agent: 'b' }),
      result(1, 0, {}, { agent: 'a' }),
      result(1, 1, {}, { agent: 'a' }),
      result(2, 0, {}, { agent: 'b' }),
    ]);
    const aggregates = await aggregateFiles({ results: [results] });
    const path = join(dir, 'run_aggregate_metrics.json');
    await writeAggregateFile(path, aggregates);
    assert.equal(readFileSync(path, 'utf8'), `${JSON.stringify(aggregates, null, 2)}\n`);
    assert.deepEqual(
      aggregates.map((aggregate) => aggregate.agent_ref.name),
      ['b', 'a'],
    );
    assert.deepEqual(Object.keys(plain(aggregates)[0]!), ['agent_ref', 'agent_metrics', 'key_metrics', 'rollout_metrics', 'group_level_metrics']);
    const empty = join(dir, 'empty.json');
    await writeAggregateFile(empty, []);
    assert.equal(readFileSync(empty, 'utf8'), '[]\n');
  });
});

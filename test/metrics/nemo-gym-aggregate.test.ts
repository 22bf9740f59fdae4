import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { readMaterializedRow, readRow } from '../../src/core/row-reader.js';
import { AggregateAccumulator, passMajorityMetrics, unbiasedPassAtK, type AgentAggregate } from '../../src/metrics/index.js';

const fixture = (path: string) => new URL(`../fixtures/nemo-gym/${path}`, import.meta.url);
const lines = (path: string) => readFileSync(fixture(path), 'utf8').split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as unknown);

/** Equal as numbers (Python writes 1.0 where JavaScript writes 1), recursively; keys the expected value lacks are not compared. */
function assertSameNumbers(actual: unknown, expected: unknown, path: string): void {
  if (typeof expected === 'number') {
    assert.equal(typeof actual, 'number', `${path}: expected a number`);
    assert.ok(Math.abs((actual as number) - expected) <= 1e-9 * Math.max(1, Math.abs(expected)), `${path}: ${actual} vs ${expected}`);
  } else if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${path}: expected a list`);
    assert.equal(actual.length, expected.length, `${path}: length`);
    expected.forEach((item, i) => assertSameNumbers(actual[i], item, `${path}[${i}]`));
  } else if (typeof expected === 'object' && expected !== null) {
    assert.ok(typeof actual === 'object' && actual !== null, `${path}: expected an object`);
    for (const [key, value] of Object.entries(expected)) assertSameNumbers((actual as { [key: string]: unknown })[key], value, `${path}.${key}`);
  } else {
    assert.deepEqual(actual, expected, path);
  }
}

/** NeMo Gym's example run through the accumulator: its materialized inputs, then its rollouts in file order. */
function aggregateExample(example: string): AgentAggregate {
  const planned = lines(`${example}/example_rollouts_materialized_inputs.jsonl`).map((row, i) => readMaterializedRow(row, `materialized:${i + 1}`));
  const results = lines(`${example}/example_rollouts.jsonl`).map((row, i) => readRow(row, `rollouts:${i + 1}`));
  const accumulator = new AggregateAccumulator({ agent: planned[0]!.agent_ref.name });
  for (const row of planned) accumulator.addPlanned(row._ng_task_index);
  for (const read of results) if (read.kind === 'result') accumulator.addResult(read.row);
  return accumulator.finish();
}

for (const example of ['blackjack', 'example_multi_turn_gymnasium']) {
  describe(`NeMo Gym compatibility: ${example}`, () => {
    it("recomputes NeMo Gym's aggregate metrics from its rollouts and materialized inputs, number for number", () => {
      const [expected] = JSON.parse(readFileSync(fixture(`${example}/example_rollouts_aggregate_metrics.json`), 'utf8')) as { agent_ref: unknown; agent_metrics: object; key_metrics: object; group_level_metrics: { sample: unknown }[] }[];
      const actual = aggregateExample(example);

      assert.deepEqual(actual.agent_ref, expected!.agent_ref);
      assertSameNumbers(actual.agent_metrics, expected!.agent_metrics, 'agent_metrics');
      assertSameNumbers(actual.key_metrics, expected!.key_metrics, 'key_metrics');
      const groups = [...actual.group_level_metrics];
      assert.equal(groups.length, expected!.group_level_metrics.length);
      expected!.group_level_metrics.forEach(({ sample: _sample, ...numbers }, i) => assertSameNumbers(groups[i], numbers, `group_level_metrics[${i}]`));
    });

    it("lists the statistics and rollout infos in NeMo Gym's order", () => {
      const [expected] = JSON.parse(readFileSync(fixture(`${example}/example_rollouts_aggregate_metrics.json`), 'utf8')) as { agent_metrics: object; group_level_metrics: { rollout_infos: object[] }[] }[];
      const actual = aggregateExample(example);
      assert.deepEqual(Object.keys(actual.agent_metrics).slice(0, Object.keys(expected!.agent_metrics).length), Object.keys(expected!.agent_metrics));
      const [group] = actual.group_level_metrics;
      assert.deepEqual(Object.keys(group!.rollout_infos![0]!), Object.keys(expected!.group_level_metrics[0]!.rollout_infos[0]!));
    });
  });
}

describe('pass@k and friends', () => {
  it('adds pass@k, mean@k and majority@k only when every reward is 0 or 1: blackjack (rewards -1 and 1) has exactly NeMo Gym\'s keys', () => {
    const [expected] = JSON.parse(readFileSync(fixture('blackjack/example_rollouts_aggregate_metrics.json'), 'utf8')) as { agent_metrics: object; key_metrics: object }[];
    const blackjack = aggregateExample('blackjack');
    assert.deepEqual(Object.keys(blackjack.agent_metrics), Object.keys(expected!.agent_metrics));
    assert.deepEqual(Object.keys(blackjack.key_metrics), Object.keys(expected!.key_metrics));
    const binary = aggregateExample('example_multi_turn_gymnasium');
    assert.equal(binary.agent_metrics['pass@1/accuracy'], 100);
    assert.ok('pass@1[avg-of-1]/accuracy' in binary.key_metrics);
  });

  it('uses the unbiased estimator for binary rewards, without overflowing on large groups', () => {
    assert.equal(unbiasedPassAtK(5, 0, 1), 0);
    assert.equal(unbiasedPassAtK(5, 2, 1), 0.4);
    assert.ok(Math.abs(unbiasedPassAtK(5, 2, 2) - (1 - 3 / 10)) < 1e-12);
    assert.equal(unbiasedPassAtK(5, 4, 2), 1);
    assert.ok(Math.abs(unbiasedPassAtK(20_000, 1, 10_000) - 0.5) < 1e-12);
  });

  it('reports percentages: pass@k, mean@k with its spread across runs, and max-of-k for continuous rewards', () => {
    const binary = passMajorityMetrics([[{ scores: { accuracy: 1 } }, { scores: { accuracy: 0 } }], [{ scores: { accuracy: 0 } }, { scores: { accuracy: 0 } }]]);
    assert.equal(binary['pass@1/accuracy'], 25);
    assert.equal(binary['pass@2/accuracy'], 50);
    assert.equal(binary['pass@1[avg-of-2]/accuracy'], 25);
    assert.ok(Math.abs(binary['pass@1[avg-of-2]/accuracy/std_dev_across_runs']! - Math.SQRT2 * 25) < 1e-9);
    assert.ok(Math.abs(binary['pass@1[avg-of-2]/accuracy/std_err_across_runs']! - 25) < 1e-9);
    const continuous = passMajorityMetrics([[{ scores: { accuracy: 0.2 } }, { scores: { accuracy: 0.7 } }]]);
    assert.ok(Math.abs(continuous['pass@1/accuracy']! - 20) < 1e-9);
    assert.ok(Math.abs(continuous['pass@2/accuracy']! - 70) < 1e-9);
  });

  it('decides binary or continuous per task, as NeMo Gym does', () => {
    const metrics = passMajorityMetrics([[{ scores: { accuracy: 1 } }, { scores: { accuracy: 0 } }], [{ scores: { accuracy: 0.5 } }, { scores: { accuracy: 0.25 } }]]);
    assert.ok(Math.abs(metrics['pass@1/accuracy']! - (100 * (0.5 + 0.5)) / 2) < 1e-9);
    assert.ok(Math.abs(metrics['pass@2/accuracy']! - (100 * (1 + 0.5)) / 2) < 1e-9);
  });

  it('skips tasks with fewer than k rollouts for pass@k only: mean@k and the per-run means take every task', () => {
    const metrics = passMajorityMetrics([[{ scores: { accuracy: 1 } }, { scores: { accuracy: 1 } }, { scores: { accuracy: 0 } }], [{ scores: { accuracy: 0 } }]]);
    assert.equal(metrics['pass@3/accuracy'], 100);
    assert.equal(metrics['pass@1[avg-of-3]/accuracy'], (100 * (2 / 3 + 0)) / 2);
    // Runs: [1, 0] → 50, [1] → 100, [0] → 0; std of the first three per-run means.
    assert.ok(Math.abs(metrics['pass@1[avg-of-3]/accuracy/std_dev_across_runs']! - 50) < 1e-9);
    assert.deepEqual(Object.keys(metrics).slice(0, 2), ['pass@1/accuracy', 'pass@1[avg-of-1]/accuracy']);
  });

  it('takes the most common (answer, score) for majority@k, averaging ties, and scores missing answers as no_answer', () => {
    const metrics = passMajorityMetrics(
      [
        [{ scores: { accuracy: 1 }, answer: '4' }, { scores: { accuracy: 0 }, answer: '5' }, { scores: { accuracy: 1 }, answer: '4' }],
        [{ scores: { accuracy: 0 }, answer: null }, { scores: { accuracy: 0 }, answer: '7' }, { scores: { accuracy: 1 }, answer: '8' }],
      ],
      { withAnswers: true },
    );
    assert.equal(metrics['majority@1/accuracy'], 50);
    assert.equal(metrics['majority@2/accuracy'], 25);
    assert.equal(metrics['majority@3/accuracy'], 75);
    assert.equal(metrics['majority@3/no_answer'], 0);
    assert.ok(Math.abs(metrics['pass@1[avg-of-3]/no_answer']! - 100 / 6) < 1e-9);
    assert.ok(Math.abs(metrics['pass@1/no_answer']! - 100 / 6) < 1e-9);
  });
});

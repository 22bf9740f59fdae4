import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { aggregateMetrics, passMajorityMetrics, unbiasedPassAtK, type ResultRow } from '../../src/metrics/index.js';

const fixture = (path: string) => new URL(`../fixtures/nemo-gym/${path}`, import.meta.url);
const jsonl = (path: string) => readFileSync(fixture(path), 'utf8').split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as ResultRow);

/** Equal as numbers (Python writes 1.0 where JavaScript writes 1), recursively. */
function assertSameNumbers(actual: unknown, expected: unknown, path: string): void {
  if (typeof expected === 'number') {
    assert.equal(typeof actual, 'number', `${path}: expected a number`);
    assert.ok(Math.abs((actual as number) - expected) <= 1e-9 * Math.max(1, Math.abs(expected)), `${path}: ${actual} vs ${expected}`);
  } else if (Array.isArray(expected)) {
    assert.equal((actual as unknown[]).length, expected.length, `${path}: length`);
    expected.forEach((item, i) => assertSameNumbers((actual as unknown[])[i], item, `${path}[${i}]`));
  } else if (typeof expected === 'object' && expected !== null) {
    for (const [key, value] of Object.entries(expected)) assertSameNumbers((actual as Record<string, unknown>)[key], value, `${path}.${key}`);
  } else {
    assert.deepEqual(actual, expected, path);
  }
}

for (const example of ['blackjack', 'example_multi_turn_gymnasium']) {
  describe(`NeMo Gym compatibility: ${example}`, () => {
    it("recomputes NeMo Gym's aggregate metrics from its rollouts and materialized inputs, number for number", () => {
      const rollouts = jsonl(`${example}/example_rollouts.jsonl`);
      const materialized = jsonl(`${example}/example_rollouts_materialized_inputs.jsonl`);
      const expectedRollouts = new Map<number, number>();
      for (const row of materialized) expectedRollouts.set(row._ng_task_index as number, (expectedRollouts.get(row._ng_task_index as number) ?? 0) + 1);
      const [expected] = JSON.parse(readFileSync(fixture(`${example}/example_rollouts_aggregate_metrics.json`), 'utf8')) as Record<string, unknown>[];
      const agent = (rollouts[0]!.agent_ref as { name: string }).name;
      const actual = aggregateMetrics(rollouts, { agent, expectedRollouts });

      assert.equal(actual.agent_ref.name, (expected!.agent_ref as { name: string }).name);
      assertSameNumbers(actual.agent_metrics, expected!.agent_metrics, 'agent_metrics');
      assertSameNumbers(actual.key_metrics, expected!.key_metrics, 'key_metrics');
      const groups = expected!.group_level_metrics as Record<string, unknown>[];
      assert.equal(actual.group_level_metrics.length, groups.length);
      groups.forEach((group, i) => {
        const { sample: _sample, ...numbers } = group;
        assertSameNumbers(actual.group_level_metrics[i], numbers, `group_level_metrics[${i}]`);
      });
    });
  });
}

describe('pass@k and friends', () => {
  it('uses the unbiased estimator for binary rewards', () => {
    assert.equal(unbiasedPassAtK(5, 0, 1), 0);
    assert.equal(unbiasedPassAtK(5, 2, 1), 0.4);
    assert.ok(Math.abs(unbiasedPassAtK(5, 2, 2) - (1 - 3 / 10)) < 1e-12);
    assert.equal(unbiasedPassAtK(5, 4, 2), 1);
  });

  it('reports percentages: pass@k, mean@k with its spread across runs, and max-of-k for continuous rewards', () => {
    const binary = passMajorityMetrics([[{ scores: { accuracy: 1 } }, { scores: { accuracy: 0 } }], [{ scores: { accuracy: 0 } }, { scores: { accuracy: 0 } }]]);
    assert.equal(binary['pass@1/accuracy'], 25);
    assert.equal(binary['pass@2/accuracy'], 50);
    assert.equal(binary['pass@1[avg-of-2]/accuracy'], 25);
    assert.ok(Math.abs(binary['pass@1[avg-of-2]/accuracy/std_dev_across_runs']! - Math.SQRT2 * 25) < 1e-9);
    const continuous = passMajorityMetrics([[{ scores: { accuracy: 0.2 } }, { scores: { accuracy: 0.7 } }]]);
    assert.ok(Math.abs(continuous['pass@2/accuracy']! - 70) < 1e-9);
  });

  it('takes the most common answer for majority@k, averaging ties, and scores missing answers as no_answer', () => {
    const metrics = passMajorityMetrics(
      [
        [{ scores: { accuracy: 1 }, answer: '4' }, { scores: { accuracy: 0 }, answer: '5' }, { scores: { accuracy: 1 }, answer: '4' }],
        [{ scores: { accuracy: 0 }, answer: null }, { scores: { accuracy: 0 }, answer: '7' }, { scores: { accuracy: 1 }, answer: '8' }],
      ],
      { withAnswers: true },
    );
    assert.equal(metrics['majority@3/accuracy'], 75);
    assert.ok(Math.abs(metrics['pass@1[avg-of-3]/no_answer']! - 100 / 6) < 1e-9);
  });
});

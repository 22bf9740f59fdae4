// The group page's mean, std and advantages are the GRPO trainer's: the viewer cannot import train/
// (a layer above it), so it computes them itself and this spec holds the two to the same numbers.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { groupAdvantages } from '../../src/train/group-advantages.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectedAnswer } from '../../src/viewer/expected-answer.js';
import { groupStatistics } from '../../src/viewer/group-statistics.js';
import { taskGroup } from '../../src/viewer/rollout-views.js';
import { RunIndex } from '../../src/viewer/run-index.js';
import { syntheticRow, toLines } from '../support/synthetic-rows.js';

describe('groupStatistics', () => {
  it('gives every reward the advantage the GRPO trainer gives it, bit for bit', () => {
    const groups = [
      [1, 0, 0, 0],
      [1, 1, 1, 1],
      [0.25, 0.5, 0.75, 1, 0, 0.1, 0.9, 0.3],
      [3],
      [0, 1, 0, 1, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 1, 1],
      [1e-9, 0, 0],
      [-2, 5, 0.5],
    ];
    for (const rewards of groups) assert.deepEqual(groupStatistics(rewards).advantages, groupAdvantages(rewards), `rewards ${rewards.join(', ')}`);
  });

  it('reports the mean and the population std, and no signal when every reward is equal', () => {
    assert.deepEqual(groupStatistics([1, 0, 0, 0]).statistics, { scored: 4, mean: 0.25, std: Math.sqrt(0.1875), signal: true });
    assert.deepEqual(groupStatistics([1, 1]), { statistics: { scored: 2, mean: 1, std: 0, signal: false }, advantages: [0, 0] });
  });

  it('leaves rollouts without a reward (failures) out of the group and gives them no advantage', () => {
    const { statistics, advantages } = groupStatistics([1, null, 0]);
    assert.deepEqual(statistics, { scored: 2, mean: 0.5, std: 0.5, signal: true });
    assert.deepEqual(advantages, [...groupAdvantages([1, 0]).slice(0, 1), null, ...groupAdvantages([1, 0]).slice(1)]);
    assert.deepEqual(groupStatistics([null]), { statistics: { scored: 0, mean: null, std: null, signal: false }, advantages: [null] });
  });
});

describe('taskGroup', () => {
  it('averages the rewards the trainer averages: a prompt that never reached the model counts (its 0), a failure does not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gymnast-group-'));
    try {
      const files = { id: 'out', output: join(dir, 'out.jsonl'), failures: join(dir, 'out_failures.jsonl') };
      const successes = [
        { task: 0, rollout: 0, reward: 1 },
        { task: 0, rollout: 1, reward: 1 },
        { task: 0, rollout: 2, reward: 0, turns: 0 },
      ];
      writeFileSync(files.output, toLines(successes.map(syntheticRow)));
      writeFileSync(files.failures, toLines([syntheticRow({ task: 0, rollout: 3, failure: 'transport' })]));
      const index = await RunIndex.build(files);
      const group = await taskGroup(index, 0);
      index.close();
      assert.deepEqual(
        group.items.map((item) => [item.rollout, item.reward, item.advantage]),
        [...groupAdvantages([1, 1, 0]).map((advantage, i) => [i, i === 2 ? null : 1, advantage]), [3, null, null]],
      );
      assert.equal(group.statistics.scored, 3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('expectedAnswer', () => {
  it("finds NeMo Gym's expected_answer, NeMo RL's ground_truth, the arithmetic tasks' answer, else an expected_* field", () => {
    assert.deepEqual(expectedAnswer({ expected_answer: 'Paris', answer: 'x' }), { field: 'expected_answer', value: 'Paris' });
    assert.deepEqual(expectedAnswer({ ground_truth: '\\frac{1}{2}' }), { field: 'ground_truth', value: '\\frac{1}{2}' });
    assert.deepEqual(expectedAnswer({ problem: '50+37', answer: 87 }), { field: 'answer', value: 87 });
    assert.deepEqual(expectedAnswer({ expected_count: 6, initial_count: 3 }), { field: 'expected_count', value: 6 });
    assert.equal(expectedAnswer({ responses_create_params: {} }), null);
  });
});

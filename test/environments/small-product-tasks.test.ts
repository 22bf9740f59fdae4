import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { smallProductTasks } from '../../src/environments/index.js';
import { runArithmetic } from '../support/embedded-arithmetic.js';

describe('small products: a task family the embedded model is weak at', () => {
  it('keeps its held-out tasks apart from the ones to train on, and every answer right', () => {
    const train = smallProductTasks('train');
    const heldOut = smallProductTasks('held-out');
    assert.equal(train.length + heldOut.length, 90 * 11);
    const trained = new Set(train.map((task) => task.problem));
    assert.ok(heldOut.every((task) => !trained.has(task.problem)));
    for (const task of [...train, ...heldOut]) {
      const [a, b] = task.problem.split('*').map(Number);
      assert.equal(task.answer, a! * b!);
    }
  });

  it('gives examples/small-products.jsonl held-out tasks only, as examples/README.md says', () => {
    const heldOut = new Map(smallProductTasks('held-out').map((task) => [task.problem, task.answer]));
    const rows = readFileSync(new URL('../../examples/small-products.jsonl', import.meta.url), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { problem: string; answer: number });
    assert.equal(rows.length, 25);
    assert.deepEqual(
      rows.filter((row) => heldOut.get(row.problem) !== row.answer).map((row) => row.problem),
      [],
      'rows that are not held-out tasks with their answer',
    );
  });

  it('holds out products ending in each digit about as often as the trained ones: the copy errors differ by digit', () => {
    const lastDigits = (tasks: readonly { answer: number }[]) =>
      Array.from({ length: 10 }, (_, digit) => tasks.filter((task) => task.answer % 10 === digit).length / tasks.length);
    const train = lastDigits(smallProductTasks('train'));
    lastDigits(smallProductTasks('held-out')).forEach((share, digit) => {
      assert.ok(Math.abs(share - train[digit]!) < 0.05, `products ending in ${digit}: ${share.toFixed(2)} of held-out, ${train[digit]!.toFixed(2)} of train`);
    });
  });

  it('gives the embedded model groups whose rewards differ: pass@1 well under pass@4', async () => {
    const problems = smallProductTasks('held-out')
      .filter((_, i) => i % 8 === 0)
      .map((task) => task.problem);
    const records = await runArithmetic(problems, { temperature: 1, seed: 5 }, 4);
    const rewards = problems.map((problem) => records.filter((record) => record.task_id === problem).map((record) => record.reward));
    const passAt1 = rewards.flat().reduce((sum, reward) => sum + reward, 0) / rewards.flat().length;
    const passAt4 = rewards.filter((group) => group.some((reward) => reward > 0)).length / rewards.length;
    const mixed = rewards.filter((group) => new Set(group).size > 1).length;
    assert.ok(passAt1 > 0.05 && passAt1 < 0.5, `pass@1 ${passAt1}`);
    assert.ok(passAt4 > passAt1 + 0.1, `pass@4 ${passAt4} vs pass@1 ${passAt1}`);
    assert.ok(mixed >= 3, `${mixed} groups of ${rewards.length} have rewards that differ`);
  });
});

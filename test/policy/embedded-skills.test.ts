import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { heldOutPairs, runArithmetic } from '../support/embedded-arithmetic.js';

/** Targets on the committed weights; every problem here was held out of training. */
describe('the embedded model (committed weights)', () => {
  it('answers held-out 2-digit additions right, greedy, at least 90% of the time', async () => {
    const problems = heldOutPairs([10, 99]).map(([a, b]) => `${a}+${b}`);
    const records = await runArithmetic(problems, { greedy: true });
    const firstTry = records.filter((record) => record.record_type === 'rollout' && record.reward === 1 && record.turns.length === 1).length;
    assert.ok(firstTry / records.length >= 0.9, `${firstTry}/${records.length} right on the first answer`);
  });

  it('calls the calculator tool and answers right on at least 80% of held-out products', async () => {
    const problems = heldOutPairs([2, 99]).filter((_, i) => i % 8 === 0).map(([a, b]) => `${a}*${b}`);
    const records = await runArithmetic(problems, { greedy: true });
    const usedToolAndRight = records.filter(
      (record) => record.reward === 1 && record.messages.some((message) => message.role === 'assistant' && message.content.startsWith('<calc>')),
    ).length;
    assert.ok(usedToolAndRight / records.length >= 0.8, `${usedToolAndRight}/${records.length} used the tool and answered right`);
  });

  it('at temperature 1 its reward varies across repeats: pass@8 beats pass@1, as RL needs', async () => {
    const problems = heldOutPairs([10, 99]).filter((_, i) => i % 20 === 0).map(([a, b]) => `${a}+${b}`);
    const records = await runArithmetic(problems, { temperature: 1, seed: 7 }, 8);
    const byTask = new Map<number, number[]>();
    for (const record of records) byTask.set(record.task_index, [...(byTask.get(record.task_index) ?? []), record.reward]);
    const passAt1 = records.filter((record) => record.reward === 1).length / records.length;
    const passAt8 = [...byTask.values()].filter((rewards) => rewards.some((reward) => reward === 1)).length / byTask.size;
    assert.ok(passAt8 > passAt1, `pass@8 ${passAt8} vs pass@1 ${passAt1}`);
    assert.ok(records.every((record) => record.record_type === 'rollout'));
    assert.ok(records.every((record) => record.turns.every((turn) => turn.logprobs_mode === 'raw')));
  });
});

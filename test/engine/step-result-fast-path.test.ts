import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StepResult } from '../../src/core/step-result.js';
import { plainStepResult } from '../../src/engine/plain-step-result.fast.js';
import { readStepResult } from '../../src/engine/read-step-result.js';

const retry = { observation: [{ role: 'user', content: 'Incorrect, try again.' }], reward: 0, terminated: false, metadata: { attempts: 1 }, answer: '12' };
const toolAnswer = { observation: [{ role: 'tool', content: '{"result":282}', tool_call_id: 'call_0' }], reward: 0, terminated: false };

/** Real step results (the arithmetic environment's retry, a tool's answer, a final score) and every one-field change of them. */
const cases: Record<string, unknown> = {
  "arithmetic's retry": retry,
  "a tool's answer": toolAnswer,
  'a final score, no observation': { reward: 1, terminated: true, answer: null },
  'every optional field': {
    ...retry,
    reward: 0.75,
    reward_components: { format: 0.25, correct: 0.5 },
    truncated: true,
    next_stop_strings: ['</calc>'],
  },
  'cleared stop strings': { ...retry, next_stop_strings: null },
  'keys present but undefined': { ...retry, metadata: undefined, answer: undefined, next_stop_strings: undefined, observation: undefined },
  'a message with extra fields': { ...retry, observation: [{ role: 'user', content: 'x', name: 'judge' }] },
  'a message with a tool call id undefined': { ...retry, observation: [{ role: 'tool', content: 'x', tool_call_id: undefined }] },
  'an extra top-level field': { ...retry, extra: true },
  'tool calls read': { ...retry, tool_calls: [{ id: 'c1', function: { name: 'calc', arguments: '{}' } }] },
  'fields reported': { ...retry, fields: { extracted_answer: '12' } },
  'a message with tokens': { ...retry, observation: [{ role: 'user', content: 'x', token_ids: [1, 2] }] },
  'a message without content': { ...retry, observation: [{ role: 'user' }] },
  'an unknown role': { ...retry, observation: [{ role: 'judge', content: 'x' }] },
  'a number as content': { ...retry, observation: [{ role: 'user', content: 3 }] },
  'an observation that is not a list': { ...retry, observation: { role: 'user', content: 'x' } },
  'a null observation': { ...retry, observation: null },
  'a reward as text': { ...retry, reward: '1' },
  'an infinite reward': { ...retry, reward: Number.POSITIVE_INFINITY },
  'a NaN reward': { ...retry, reward: Number.NaN },
  'no reward': { observation: [], terminated: true },
  'terminated as a number': { ...retry, terminated: 1 },
  'no terminated': { observation: [], reward: 0 },
  'truncated as text': { ...retry, truncated: 'yes' },
  'an infinite component': { ...retry, reward_components: { a: Number.POSITIVE_INFINITY } },
  'a component as text': { ...retry, reward_components: { a: '0' } },
  'components as a list': { ...retry, reward_components: [0] },
  'a stop string that is a number': { ...retry, next_stop_strings: [1] },
  'an answer that is a number': { ...retry, answer: 12 },
  'a list, not an object': [retry],
  null: null,
  'a string': 'done',
};

describe('reading a step result (readStepResult)', () => {
  for (const [name, raw] of Object.entries(cases)) {
    it(`reads ${name} as the StepResult schema does`, () => {
      const ours = readStepResult(raw);
      const zods = StepResult.safeParse(raw);
      assert.equal(ours.success, zods.success);
      if (ours.success && zods.success) {
        assert.deepEqual(ours.data, zods.data);
        assert.equal(JSON.stringify(ours.data), JSON.stringify(zods.data), 'same fields, same order');
        assert.deepEqual(Object.keys(ours.data), Object.keys(zods.data), 'the same keys, undefined ones included');
      } else assert.deepEqual(ours.error?.issues, zods.error?.issues);
    });
  }

  it('takes the hand check for the shapes environments return every turn', () => {
    for (const raw of [retry, toolAnswer, cases['a final score, no observation'], cases['every optional field']])
      assert.ok(plainStepResult(raw), JSON.stringify(raw));
  });

  it('hands back a copy: changing what the environment returned later changes nothing read', () => {
    const raw = { observation: [{ role: 'user', content: 'a' }], reward: 0.5, reward_components: { a: 0.5 }, terminated: false };
    const read = plainStepResult(raw)!;
    raw.observation[0]!.content = 'changed';
    raw.reward_components.a = 9;
    assert.deepEqual([read.observation[0]?.content, read.reward_components?.a], ['a', 0.5]);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readStepResult } from '../../src/engine/read-step-result.js';
import { StepResult } from '../../src/environments/environment.js';

const base = { observation: [{ role: 'environment', content: 'incorrect, try again' }], reward: 0, terminated: false, metadata: { attempts: 1 }, answer: '12' };

/** Values every field is set to in turn: the right types, the wrong ones, and the edges between. */
const values: unknown[] = [undefined, null, 0, -0, 1, 0.5, Number.NaN, Number.POSITIVE_INFINITY, '', 'text', true, false, [], ['stop'], [1], {}, { a: 1 }, [{ role: 'user', content: 'x' }]];
const fields = ['observation', 'reward', 'reward_components', 'terminated', 'truncated', 'metadata', 'next_stop_strings', 'answer', 'tool_calls', 'fields', 'unknown_field'];
const messageFields = ['role', 'content', 'token_ids', 'tool_call_id', 'reasoning_content', 'generation_logprobs', 'extra'];

function variants(): [string, unknown][] {
  const cases: [string, unknown][] = [
    ['an arithmetic step', base],
    ['a step with every plain field', { ...base, truncated: true, next_stop_strings: ['</calc>'], answer: null }],
    ['a step ending with no observation', { reward: 1, terminated: true }],
    ['a class instance', Object.assign(Object.create({ inherited: 1 }), base)],
    ['not an object', [base]],
    ['null', null],
  ];
  for (const field of fields) for (const value of values) cases.push([`${field} = ${JSON.stringify(value) ?? String(value)}`, { ...base, [field]: value }]);
  for (const field of messageFields) {
    for (const value of values) cases.push([`observation[0].${field} = ${JSON.stringify(value) ?? String(value)}`, { ...base, observation: [{ ...base.observation[0], [field]: value }] }]);
  }
  return cases;
}

describe('reading an environment step (readStepResult)', () => {
  it('reads every one-field change of a step as the StepResult schema does: same verdict, same fields in the same order, same issues', () => {
    for (const [name, raw] of variants()) {
      const ours = readStepResult(raw);
      const zods = StepResult.safeParse(raw);
      assert.equal(ours.success, zods.success, name);
      if (ours.success && zods.success) {
        assert.equal(JSON.stringify(ours.data), JSON.stringify(zods.data), `${name}: same fields, same order`);
      } else assert.deepEqual(ours.error?.issues, zods.error?.issues, name);
    }
  });

  it('reads the steps environments usually return without the schema', (context) => {
    context.mock.method(StepResult, 'safeParse', () => assert.fail('the schema was asked'));
    for (const raw of [base, { reward: 1, terminated: true }, { ...base, truncated: true, next_stop_strings: null, answer: null, metadata: undefined }]) {
      assert.ok(readStepResult(raw).success);
    }
  });

  it('keeps the state it is given, and copies what the schema copies', () => {
    const metadata = { attempts: 1 };
    const stops = ['</calc>'];
    const read = readStepResult({ ...base, metadata, next_stop_strings: stops });
    assert.ok(read.success);
    assert.equal(read.data.metadata, metadata);
    assert.notEqual(read.data.next_stop_strings, stops);
    assert.notEqual(read.data.observation, base.observation);
  });
});

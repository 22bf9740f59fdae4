import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readStepResult } from '../../src/engine/read-step-result.js';
import { StepResult } from '../../src/core/step-result.js';
import { oneChangeVariants, withUndefinedKeys } from '../support/one-change-variants.js';

const base = { observation: [{ role: 'environment', content: 'incorrect, try again' }], reward: 0, terminated: false, metadata: { attempts: 1 }, answer: '12' };

/** Values every value is set to in turn: the right types, the wrong ones, and the edges between. */
const REPLACEMENTS: unknown[] = [undefined, null, 0, -0, 1, 0.5, Number.NaN, Number.POSITIVE_INFINITY, '', 'text', true, false, [], ['stop'], [1], {}, { a: 1 }, [{ role: 'user', content: 'x' }]];

/** Steps that are plain, and steps with the fields only the schema reads. */
const BASES: unknown[] = [
  base,
  { ...base, truncated: true, next_stop_strings: ['</calc>'], answer: null },
  { reward: 1, terminated: true },
  { ...base, observation: [{ role: 'tool', content: '4', tool_call_id: 'c1' }], reward_components: { a: 0 }, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'calc', arguments: '{}' } }], fields: { x: 1 } },
];

function variants(): [string, unknown][] {
  const cases: [string, unknown][] = [
    ['a class instance', Object.assign(Object.create({ inherited: 1 }), base)],
    ['not an object', [base]],
    ['null', null],
  ];
  for (const step of BASES) {
    for (const variant of [step, ...oneChangeVariants(step, { replacements: REPLACEMENTS, maxDepth: 4, reshape: true })].map(withUndefinedKeys)) cases.push([JSON.stringify(variant) ?? String(variant), variant]);
  }
  return cases;
}

describe('reading an environment step (readStepResult)', () => {
  it('reads every one-field change of a step as the StepResult schema does: same verdict, same fields in the same order, same issues', () => {
    const cases = variants();
    assert.ok(cases.length > 800, `${cases.length} variants`);
    for (const [name, raw] of cases) {
      const ours = readStepResult(raw);
      const zods = StepResult.safeParse(raw);
      assert.equal(ours.success, zods.success, name);
      if (ours.success && zods.success) {
        assert.equal(JSON.stringify(ours.data), JSON.stringify(zods.data), `${name}: same fields, same order`);
      } else assert.deepEqual(ours.error?.issues, zods.error?.issues, name);
    }
  });

  it('reads the steps environments usually return without the schema', (context) => {
    // zod defines a schema's methods on first use: read it once so there is a method to replace.
    assert.equal(typeof StepResult.safeParse, 'function');
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

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { logprobFindings } from '../../src/metrics/health/logprob-findings.js';

/** Each finding as `check (severity): message`, in the order returned. */
const said = (where: string, field: string, ids: number, values: unknown) =>
  logprobFindings(where, field, ids, values).map(({ check, severity, message }) => `${check} (${severity}): ${message}`);

describe('logprob findings of one model call', () => {
  it('finds nothing for sound logprobs, 0 (a probability of 1) included', () => {
    assert.deepEqual(said('turn 0', 'generation_logprobs', 3, [-0.5, 0, -12]), []);
  });

  it('checks nothing when no token was sampled, whatever the field holds', () => {
    for (const values of [undefined, null, 'x', [0.5], [Number.NaN]]) assert.deepEqual(said('turn 0', 'generation_logprobs', 0, values), []);
  });

  it('says how many sampled tokens have no logprobs when the field is absent or null, naming it as the row spells it', () => {
    assert.deepEqual(said('turn 1', 'generation_logprobs', 4, undefined), ['logprobs-missing (error): turn 1: 4 sampled tokens without generation_logprobs']);
    assert.deepEqual(said('response.output[2]', 'generation_log_probs', 1, null), [
      'logprobs-missing (error): response.output[2]: 1 sampled tokens without generation_log_probs',
    ]);
  });

  it('refuses a field that is not a list', () => {
    for (const values of [-0.5, 'x', { 0: -0.5 }]) {
      assert.deepEqual(said('turn 0', 'generation_logprobs', 1, values), ['logprobs-length (error): turn 0: generation_logprobs is not a list']);
    }
  });

  it('counts logprobs against token ids, one short or one over, and still checks the values it has', () => {
    assert.deepEqual(said('turn 0', 'generation_logprobs', 3, [-1, -1]), ['logprobs-length (error): turn 0: 2 logprobs for 3 token ids']);
    assert.deepEqual(said('turn 0', 'generation_logprobs', 3, [-1, -1, -1, -1]), ['logprobs-length (error): turn 0: 4 logprobs for 3 token ids']);
    assert.deepEqual(said('turn 0', 'generation_logprobs', 3, [-1, 2]), [
      'logprobs-length (error): turn 0: 2 logprobs for 3 token ids',
      'logprobs-positive (error): turn 0: generation_logprobs[1] is 2, above 0',
    ]);
  });

  it('names the first value that is not a finite number, by its index', () => {
    const cases: [unknown[], string][] = [
      [[-1, Number.NaN, -1], 'generation_logprobs[1] is NaN'],
      [[Number.NaN, -1, Number.NaN], 'generation_logprobs[0] is NaN'],
      [[-1, -1, Number.NEGATIVE_INFINITY], 'generation_logprobs[2] is -Infinity'],
      [[-1, null, Number.NaN], 'generation_logprobs[1] is null'],
      [[-1, -1, '-0.5'], 'generation_logprobs[2] is -0.5'],
    ];
    for (const [values, message] of cases) {
      assert.deepEqual(said('turn 3', 'generation_logprobs', 3, values), [`logprobs-non-finite (error): turn 3: ${message}`]);
    }
  });

  it('names the first logprob above 0, however little above, and only numbers count as above', () => {
    assert.deepEqual(said('turn 0', 'generation_logprobs', 4, [-1, 0, 1e-9, 3]), [
      'logprobs-positive (error): turn 0: generation_logprobs[2] is 1e-9, above 0',
    ]);
    assert.deepEqual(said('turn 0', 'generation_logprobs', 2, [-1, '0.5']), ['logprobs-non-finite (error): turn 0: generation_logprobs[1] is 0.5']);
    assert.deepEqual(said('turn 0', 'generation_logprobs', 2, [Number.POSITIVE_INFINITY, 0.25]), [
      'logprobs-non-finite (error): turn 0: generation_logprobs[0] is Infinity',
      'logprobs-positive (error): turn 0: generation_logprobs[0] is Infinity, above 0',
    ]);
  });
});

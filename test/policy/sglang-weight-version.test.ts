import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type PolicyRequest, sglangGenerateBackend } from '../../src/policy/index.js';

/** A `/generate` answer as SGLang writes it, with the weight version given (or none). */
function answer(weightVersion?: unknown): unknown {
  return {
    text: 'ok',
    output_ids: [7],
    meta_info: {
      finish_reason: { type: 'stop' },
      prompt_tokens: 3,
      completion_tokens: 1,
      output_token_logprobs: [[-0.5, 7, null]],
      ...(weightVersion === undefined ? {} : { weight_version: weightVersion }),
    },
  };
}

const versionOf = (wire: unknown) => {
  const read = sglangGenerateBackend.readResponse!(wire) ?? sglangGenerateBackend.responseSchema.parse(wire);
  return sglangGenerateBackend.fromWire(read, {} as PolicyRequest).policy_version;
};

describe("SGLang's weight_version as the turn's policy_version", () => {
  it('reads a count, as a string (SGLang names versions) or a number, as the version', () => {
    assert.equal(versionOf(answer('3')), 3);
    assert.equal(versionOf(answer(12)), 12);
    assert.equal(versionOf(answer('0')), 0);
  });

  it('leaves out a version it would have to guess: "default", a name, a negative or fractional number, none', () => {
    for (const given of ['default', 'step-100', '-1', '1.5', -1, 1.5, null, undefined]) assert.equal(versionOf(answer(given)), undefined, String(given));
  });

  it('refuses a weight_version of another type, as the schema does', () => {
    assert.equal(sglangGenerateBackend.readResponse!(answer({ v: 1 })), undefined);
    assert.throws(() => sglangGenerateBackend.responseSchema.parse(answer({ v: 1 })));
  });
});

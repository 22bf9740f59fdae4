import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readPolicyResult } from '../../src/engine/read-policy-result.js';
import { PolicyResult } from '../../src/core/policy-result.js';

const base = {
  token_ids: [562, 151645],
  logprobs: [-0.7, -1.3],
  text: 'ok',
  finish_reason: { unified: 'stop', raw: 'stop' },
  usage: { prompt_tokens: 15, completion_tokens: 2 },
};

const cases: Record<string, unknown> = {
  'a backend result': base,
  'every optional field': {
    ...base,
    token_source: 'sampler',
    logprobs_mode: 'processed',
    prompt_token_ids: [1, 2, 3],
    prompt_source: 'server',
    policy_version: 3,
    server: 'http://127.0.0.1:8000',
  },
  'a server that is not a string': { ...base, server: 8000 },
  'a fractional policy version': { ...base, policy_version: 1.5 },
  'a bad prompt source': { ...base, prompt_source: 'proxy' },
  'a text-only result': { ...base, token_ids: [], logprobs: [], token_source: 'none' },
  'extra fields, nested too': { ...base, extra: 1, finish_reason: { unified: 'length', other: true }, usage: { ...base.usage, total_tokens: 17 } },
  'a text-only result with ids': { ...base, token_source: 'none' },
  'lengths that differ': { ...base, logprobs: [-0.7] },
  'a negative id': { ...base, token_ids: [-1, 2] },
  'a fractional count': { ...base, usage: { prompt_tokens: 1.5, completion_tokens: 2 } },
  'an infinite logprob': { ...base, logprobs: [-Infinity, -1] },
  'an unknown finish reason': { ...base, finish_reason: { unified: 'done' } },
  'a bad logprobs mode': { ...base, logprobs_mode: 'sampled' },
  'no usage': { ...base, usage: undefined },
  'not an object': [base],
  null: null,
};

describe('reading a policy result (readPolicyResult)', () => {
  for (const [name, raw] of Object.entries(cases)) {
    it(`reads ${name} as the PolicyResult schema does`, () => {
      const ours = readPolicyResult(raw);
      const zods = PolicyResult.safeParse(raw);
      assert.equal(ours.success, zods.success);
      if (ours.success && zods.success) assert.equal(JSON.stringify(ours.data), JSON.stringify(zods.data), 'same fields, same order');
      else assert.deepEqual(ours.error?.issues, zods.error?.issues);
    });
  }
});

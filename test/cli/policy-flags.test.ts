import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { policySpec } from '../../src/cli/policy-flags.js';

describe('the policy flags', () => {
  const saved = { GYMNAST_API_KEY: process.env.GYMNAST_API_KEY, OPENAI_API_KEY: process.env.OPENAI_API_KEY };
  before(() => {
    delete process.env.GYMNAST_API_KEY;
    process.env.OPENAI_API_KEY = 'from-the-environment';
  });
  after(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
  const flags = (baseUrl: string, apiKey?: string) => ({
    policy: 'vllm-chat',
    baseUrl: [baseUrl],
    tokenizer: 'dir',
    ...(apiKey === undefined ? {} : { apiKey }),
  });
  const keyOf = (spec: ReturnType<typeof policySpec>) => (spec.kind === 'embedded' ? undefined : spec.apiKey);

  it('take the API key from the environment when --api-key is not given', () => {
    assert.equal(keyOf(policySpec(flags('http://127.0.0.1:8000'))), 'from-the-environment');
  });

  it('take none from the environment for a --base-url with its own user and password, which are sent instead', () => {
    assert.equal(keyOf(policySpec(flags('http://user:pass@127.0.0.1:8000'))), undefined);
  });

  it('refuse --api-key beside a --base-url with a user and password: one of them would not be sent', () => {
    assert.throws(() => policySpec(flags('http://user:pass@127.0.0.1:8000', 'given')), /http:\/\/\*\*\*@127\.0\.0\.1:8000 has a user and password/);
  });
});

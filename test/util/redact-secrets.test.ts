import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactSecrets } from '../../src/util/redact-secrets.js';

describe('a config tree to publish (redactSecrets)', () => {
  it('masks secret-named values of any kind and URL credentials in any string, and leaves the tree it was given as it was', () => {
    const tree = {
      api_key: 'K',
      hf_token: 123,
      auth: { user: 'u' },
      list: ['http://u:K@h/v1', { password: 'K' }],
      max_tokens: 5,
      api_key_unset: '',
      token: null,
      name: 'x',
    };
    const copy = structuredClone(tree);
    assert.deepEqual(redactSecrets(tree), {
      api_key: '***',
      hf_token: '***',
      auth: '***',
      list: ['http://***@h/v1', { password: '***' }],
      max_tokens: 5,
      api_key_unset: '',
      token: null,
      name: 'x',
    });
    assert.deepEqual(tree, copy);
  });
});

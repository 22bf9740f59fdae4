import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPolicy } from '../../src/policy/index.js';
import type { InferenceServer } from '../../src/testing/index.js';
import { startServers } from '../support/loopback-model.js';
import { qwen3Directory } from '../support/qwen3.js';

describe('a model server with a bearer token (as vllm serve --api-key)', () => {
  let server: InferenceServer;
  before(async () => {
    server = (await startServers(1, { apiKey: 'sesame' }))[0]!;
  });
  after(() => server.close());

  it('refuses every route without the token with 401, but leaves /health open to probes', async () => {
    assert.equal((await fetch(`${server.url}/v1/models`)).status, 401);
    assert.equal((await fetch(`${server.url}/v1/models`, { headers: { authorization: 'Bearer wrong' } })).status, 401);
    assert.equal((await fetch(`${server.url}/v1/models`, { headers: { authorization: 'Bearer sesame' } })).status, 200);
    assert.equal((await fetch(`${server.url}/health`)).status, 200);
  });

  it('serves a policy that sends the token', async () => {
    const { policy } = await createPolicy({ kind: 'vllm-completions', baseUrls: [server.url], tokenizerDir: qwen3Directory, apiKey: 'sesame' });
    try {
      const result = await policy.generate(
        {
          session_id: 's',
          prompt_token_ids: [9707],
          messages: [],
          sampling: { temperature: 1, top_p: 1, max_tokens: 4, greedy: false },
          stop_strings: [],
          stop_token_ids: [],
        },
        new AbortController().signal,
      );
      assert.ok((result.token_ids ?? []).length > 0);
    } finally {
      await policy.close();
    }
  });
});

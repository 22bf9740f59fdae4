import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InferenceServer } from '../../src/testing/index.js';
import { qwen3Template, qwen3Tokenizer } from '../support/qwen3.js';

const tokenizer = await qwen3Tokenizer();
const template = await qwen3Template();
const complete = (url: string) => fetch(`${url}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'hi', max_tokens: 2 }) });

describe("the test inference server's request log", () => {
  it('records every request by default, and none when told not to (a long-lived demo server must not grow with its traffic)', async () => {
    for (const [recordRequests, expected] of [[undefined, 2], [false, 0]] as const) {
      const server = new InferenceServer({ tokenizer, template, ...(recordRequests === undefined ? {} : { recordRequests }) });
      const url = await server.start();
      try {
        for (const response of [await complete(url), await complete(url)]) assert.equal(response.status, 200);
        assert.equal(server.requests.length, expected);
      } finally {
        await server.close();
      }
    }
  });
});

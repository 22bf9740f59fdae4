import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { InferenceServer, type RecordedRequest } from '../../src/testing/index.js';
import { within } from '../support/within.js';
import { qwen3Template, qwen3Tokenizer } from '../support/qwen3.js';

const tokenizer = await qwen3Tokenizer();
const template = await qwen3Template();
const complete = (url: string) =>
  fetch(`${url}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'hi', max_tokens: 2 }) });

describe("the test inference server's request log", () => {
  it('records every request by default, and none when told not to (a long-lived demo server must not grow with its traffic)', async () => {
    for (const [recordRequests, expected] of [
      [undefined, 2],
      [false, 0],
    ] as const) {
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

  it('shows every request to onRequest before answering it, and answers only once onRequest is done (a benchmark counts or holds requests there)', async () => {
    const seen: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let reached!: () => void;
    const completionSeen = new Promise<void>((resolve) => (reached = resolve));
    const onRequest = async (call: RecordedRequest, request: IncomingMessage) => {
      seen.push(`${request.method} ${call.path}`);
      if (call.path !== '/v1/completions') return;
      reached();
      await held;
    };
    const server = new InferenceServer({ tokenizer, template, recordRequests: false, onRequest });
    const url = await server.start();
    try {
      assert.equal((await fetch(`${url}/v1/models`)).status, 200);
      let answered = false;
      const pending = complete(url).then((response) => {
        answered = true;
        return response;
      });
      await within(completionSeen, 5_000, 'onRequest seeing the completion');
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(answered, false);
      release();
      assert.equal((await pending).status, 200);
      assert.deepEqual(seen, ['GET /v1/models', 'POST /v1/completions']);
    } finally {
      await server.close();
    }
  });
});

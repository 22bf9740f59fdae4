import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { z } from 'zod';
import { JsonClient } from '../../src/policy/index.js';
import { InferenceServer } from '../../src/testing/index.js';
import { qwen3Template, qwen3Tokenizer } from '../support/qwen3.js';

const tokenizer = await qwen3Tokenizer();
const template = await qwen3Template();
/** Serves one named model strictly, as `vllm serve --served-model-name qwen3-test` would. */
const named = new InferenceServer({ tokenizer, template, model: 'qwen3-test' });
/** Named nothing: the test double answers whatever model its client was configured with. */
const anyName = new InferenceServer({ tokenizer, template });
const url = await named.start();
const anyUrl = await anyName.start();
const client = new JsonClient();
after(async () => {
  await client.close();
  await Promise.all([named.close(), anyName.close()]);
});

interface Answer {
  status: number;
  body: Record<string, unknown> & { error?: { message: string; type: string; param: string | null; code: string | null } };
}

async function call(path: string, body?: unknown, target = url): Promise<Answer> {
  const response = await fetch(
    `${target}${path}`,
    body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
  );
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

const chat = (extra: Record<string, unknown> = {}) => ({ model: 'qwen3-test', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4, seed: 1, ...extra });
const completion = (extra: Record<string, unknown> = {}) => ({ model: 'qwen3-test', prompt: 'What is 2+2?', max_tokens: 4, seed: 1, ...extra });

describe('the OpenAI-compatible server speaks OpenAI', () => {
  it("answers every refusal in OpenAI's error shape, naming the field at fault", async () => {
    const answer = await call('/v1/completions', completion({ top_p: 7 }));
    assert.equal(answer.status, 400);
    assert.deepEqual(Object.keys(answer.body), ['error']);
    assert.deepEqual(Object.keys(answer.body.error!).sort(), ['code', 'message', 'param', 'type']);
    assert.equal(answer.body.error!.type, 'invalid_request_error');
    assert.equal(answer.body.error!.param, 'top_p');
    assert.match(answer.body.error!.message, /top_p must be in \(0, 1\]/);
  });

  it('answers an unknown route and an unknown model with 404s in the same shape', async () => {
    const route = await call('/v1/nothing-here');
    assert.equal(route.status, 404);
    assert.match(route.body.error!.message, /no route GET \/v1\/nothing-here/);
    for (const [path, body] of [
      ['/v1/completions', completion({ model: 'gpt-4o' })],
      ['/v1/chat/completions', chat({ model: 'gpt-4o' })],
    ] as const) {
      const answer = await call(path, body);
      assert.equal(answer.status, 404, path);
      assert.deepEqual({ ...answer.body.error!, message: undefined }, { message: undefined, type: 'not_found_error', param: 'model', code: 'model_not_found' });
      assert.match(answer.body.error!.message, /`gpt-4o` does not exist.*`qwen3-test`/);
    }
  });

  it("serves the named model, a request naming none (as vLLM does), and the test double's any name", async () => {
    assert.equal((await call('/v1/chat/completions', chat())).status, 200);
    assert.equal((await call('/v1/completions', { prompt: 'hi', max_tokens: 2 })).status, 200);
    assert.equal((await call('/v1/completions', completion({ model: 'whatever-the-client-says' }), anyUrl)).status, 200);
  });

  it('gives every response its own id and a created time in unix seconds', async () => {
    const before = Math.floor(Date.now() / 1000);
    const answers = [
      await call('/v1/completions', completion()),
      await call('/v1/completions', completion()),
      await call('/v1/chat/completions', chat()),
      await call('/v1/chat/completions', chat()),
    ];
    const ids = answers.map((answer) => answer.body.id as string);
    assert.equal(new Set(ids).size, 4);
    assert.match(ids[0]!, /^cmpl-[0-9a-f]{24}$/);
    assert.match(ids[2]!, /^chatcmpl-[0-9a-f]{24}$/);
    for (const answer of answers) {
      const created = answer.body.created as number;
      assert.ok(Number.isInteger(created) && created >= before && created <= before + 5, `created ${created}`);
    }
  });

  it('lists the model and answers GET /v1/models/{id}, 404 for another id', async () => {
    const listed = await call('/v1/models');
    const card = await call('/v1/models/qwen3-test');
    assert.equal(card.status, 200);
    assert.deepEqual(card.body, (listed.body.data as unknown[])[0]);
    assert.equal(card.body.object, 'model');
    assert.equal(typeof card.body.created, 'number');
    const unknown = await call('/v1/models/gpt-4o');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error!.code, 'model_not_found');
  });

  it("lets gymnast's own client show the server's message", async () => {
    await assert.rejects(
      client.request({ method: 'POST', baseUrl: url, path: '/v1/completions', body: completion({ model: 'gpt-4o' }), schema: z.unknown(), timeoutMs: 5_000 }),
      (error: Error) => /`gpt-4o` does not exist/.test(error.message),
    );
  });
});

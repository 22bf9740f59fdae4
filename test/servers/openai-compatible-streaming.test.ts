import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, describe, it } from 'node:test';
import OpenAI, { APIError } from 'openai';
import type { Generator } from '../../src/servers/openai-compatible/generator.js';
import { OpenAiCompatibleServer } from '../../src/servers/openai-compatible/openai-compatible-server.js';
import { qwen3Template, qwen3Tokenizer, startQwen3Server } from '../support/qwen3.js';

const { server, url } = await startQwen3Server();

interface Chunk {
  id: string;
  object: string;
  created: number;
  choices: {
    index: number;
    delta?: { role?: string; content?: string | null };
    text?: string;
    finish_reason: string | null;
    token_ids?: number[];
    logprobs: { content?: { token: string; logprob: number }[]; token_logprobs?: number[] } | null;
  }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
  prompt_token_ids?: number[];
}
interface Answer {
  choices: {
    index: number;
    text?: string;
    message?: { content: string };
    token_ids?: number[];
    finish_reason: string;
    logprobs: { content?: { logprob: number }[]; token_logprobs?: number[] } | null;
  }[];
  usage: { prompt_tokens: number; completion_tokens: number };
  prompt_token_ids?: number[];
}

const post = (path: string, body: Record<string, unknown>) =>
  fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** The events of a server-sent stream: each `data:` payload, `[DONE]` included as written. */
async function events(path: string, body: Record<string, unknown>): Promise<{ contentType: string | null; data: string[] }> {
  const response = await post(path, body);
  assert.equal(response.status, 200);
  const text = await response.text();
  assert.match(text, /\n\n$/);
  const data = text
    .split('\n\n')
    .filter((event) => event !== '')
    .map((event) => {
      assert.match(event, /^data: /);
      return event.slice('data: '.length);
    });
  return { contentType: response.headers.get('content-type'), data };
}
const chunksOf = (data: string[]) => data.slice(0, -1).map((event) => JSON.parse(event) as Chunk);

const chat = { messages: [{ role: 'user', content: 'hi' }], max_tokens: 12, seed: 3 };
const completion = { prompt: 'What is 2+2?', max_tokens: 12, seed: 3 };

describe('the OpenAI-compatible server streams chat and completions as server-sent events when asked', () => {
  it('streams a chat completion: the role first, then the text token by token, the finish reason in a last chunk, as OpenAI ends a choice, then [DONE]; the text is the unstreamed answer', async () => {
    const whole = (await (await post('/v1/chat/completions', chat)).json()) as Answer;
    const { contentType, data } = await events('/v1/chat/completions', { ...chat, stream: true });
    assert.match(contentType!, /^text\/event-stream/);
    assert.equal(data.at(-1), '[DONE]');
    const chunks = chunksOf(data);
    assert.ok(
      chunks.every(
        (chunk) =>
          chunk.object === 'chat.completion.chunk' && chunk.id === chunks[0]!.id && chunk.id.startsWith('chatcmpl-') && chunk.created === chunks[0]!.created,
      ),
    );
    assert.equal(chunks[0]!.choices[0]!.delta!.role, 'assistant');
    assert.equal(chunks.map((chunk) => chunk.choices[0]!.delta!.content ?? '').join(''), whole.choices[0]!.message!.content);
    assert.equal(chunks.length, 2 + whole.usage.completion_tokens, 'one chunk per token between the role and the finish');
    assert.deepEqual(chunks.at(-1)!.choices[0]!.delta, {});
    assert.deepEqual(chunks.map((chunk) => chunk.choices[0]!.finish_reason).slice(0, -1), Array(chunks.length - 1).fill(null));
    assert.equal(chunks.at(-1)!.choices[0]!.finish_reason, whole.choices[0]!.finish_reason);
    assert.ok(
      chunks.every((chunk) => !('usage' in chunk)),
      'no usage unless asked',
    );
  });

  it('streams a completion as text_completion chunks whose texts join to the unstreamed text', async () => {
    const whole = (await (await post('/v1/completions', completion)).json()) as Answer;
    const chunks = chunksOf((await events('/v1/completions', { ...completion, stream: true })).data);
    assert.ok(chunks.every((chunk) => chunk.object === 'text_completion' && chunk.id.startsWith('cmpl-')));
    assert.equal(chunks.map((chunk) => chunk.choices[0]!.text).join(''), whole.choices[0]!.text);
    assert.equal(chunks.at(-1)!.choices[0]!.finish_reason, whole.choices[0]!.finish_reason);
  });

  it("puts each token's id and logprob on its chunk when asked, as vLLM does, and the prompt's ids on the first", async () => {
    const whole = (await (await post('/v1/chat/completions', { ...chat, return_token_ids: true, logprobs: true })).json()) as Answer;
    const chunks = chunksOf((await events('/v1/chat/completions', { ...chat, stream: true, return_token_ids: true, logprobs: true })).data);
    assert.deepEqual(chunks[0]!.prompt_token_ids, whole.prompt_token_ids);
    assert.deepEqual(
      chunks.slice(1).flatMap((chunk) => chunk.choices[0]!.token_ids!),
      whole.choices[0]!.token_ids,
    );
    assert.deepEqual(
      chunks.slice(1).flatMap((chunk) => chunk.choices[0]!.logprobs!.content!.map((entry) => entry.logprob)),
      whole.choices[0]!.logprobs!.content!.map((entry) => entry.logprob),
    );

    const text = (await (await post('/v1/completions', { ...completion, return_token_ids: true, logprobs: 0 })).json()) as Answer;
    const pieces = chunksOf((await events('/v1/completions', { ...completion, stream: true, return_token_ids: true, logprobs: 0 })).data);
    assert.deepEqual(
      pieces.flatMap((chunk) => chunk.choices[0]!.token_ids!),
      text.choices[0]!.token_ids,
    );
    assert.deepEqual(
      pieces.flatMap((chunk) => chunk.choices[0]!.logprobs!.token_logprobs!),
      text.choices[0]!.logprobs!.token_logprobs,
    );
  });

  it('streams n choices, each named by its index, with the text the unstreamed answer gives it', async () => {
    const whole = (await (await post('/v1/chat/completions', { ...chat, n: 2 })).json()) as Answer;
    const chunks = chunksOf((await events('/v1/chat/completions', { ...chat, n: 2, stream: true })).data);
    for (const index of [0, 1]) {
      const mine = chunks.filter((chunk) => chunk.choices[0]!.index === index);
      assert.equal(mine.map((chunk) => chunk.choices[0]!.delta!.content ?? '').join(''), whole.choices[index]!.message!.content);
    }
  });

  it('ends with a usage chunk with no choices when stream_options.include_usage asks, usage null before it', async () => {
    const whole = (await (await post('/v1/completions', completion)).json()) as Answer;
    for (const [path, body] of [
      ['/v1/completions', completion],
      ['/v1/chat/completions', chat],
    ] as const) {
      const chunks = chunksOf((await events(path, { ...body, stream: true, stream_options: { include_usage: true } })).data);
      const last = chunks.at(-1)!;
      assert.deepEqual(last.choices, []);
      assert.equal(last.usage!.total_tokens, last.usage!.prompt_tokens + last.usage!.completion_tokens);
      if (path === '/v1/completions')
        assert.deepEqual([last.usage!.prompt_tokens, last.usage!.completion_tokens], [whole.usage.prompt_tokens, whole.usage.completion_tokens]);
      assert.ok(chunks.slice(0, -1).every((chunk) => chunk.usage === null));
    }
  });

  it('refuses a bad streaming request before streaming, as JSON with its status; stream_options without stream is named', async () => {
    const refused = await post('/v1/chat/completions', { ...chat, stream: true, temperature: -1 });
    assert.equal(refused.status, 400);
    assert.match(refused.headers.get('content-type')!, /application\/json/);
    const options = await post('/v1/completions', { ...completion, stream_options: { include_usage: true } });
    assert.equal(options.status, 400);
    assert.equal(((await options.json()) as { error: { param: string } }).error.param, 'stream_options');
  });

  it('lets a client leave mid-stream without harm: the server goes on answering', async () => {
    await new Promise<void>((resolve, reject) => {
      const request = httpRequest(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (response) => {
        response.once('data', () => {
          request.destroy();
          resolve();
        });
      });
      request.on('error', (error) => (request.destroyed ? undefined : reject(error)));
      request.end(JSON.stringify({ ...chat, max_tokens: 200, stream: true }));
    });
    const after = await post('/v1/chat/completions', chat);
    assert.equal(after.status, 200);
  });

  it("shows the test server's injected faults on streams too: a cut-off stream ends without [DONE], an injected finish reason is on the last chunk", async () => {
    server.faults.inject({ kind: 'truncate' });
    const cut = await post('/v1/chat/completions', { ...chat, stream: true })
      .then((response) => response.text())
      .catch(() => 'connection dropped');
    assert.ok(!cut.includes('[DONE]'));
    server.faults.inject({ kind: 'finish-reason', reason: 'content_filter' });
    const { data } = await events('/v1/chat/completions', { ...chat, stream: true });
    const reasons = chunksOf(data).map((chunk) => chunk.choices[0]!.finish_reason);
    assert.deepEqual([reasons.at(-1), reasons.filter((reason) => reason !== null).length], ['content_filter', 1]);
  });

  it('reports a generation that fails mid-stream in the stream, as OpenAI does: the openai client raises it with its message after the tokens sent', async () => {
    const tokenizer = await qwen3Tokenizer();
    const [four, more] = tokenizer.encode('four more');
    const failing: Generator = async function* () {
      yield { token_id: four!, logprob: -0.1 };
      yield { token_id: more!, logprob: -0.2 };
      throw new Error('the decoder ran out of memory');
    };
    const broken = new OpenAiCompatibleServer({ tokenizer, template: await qwen3Template(), generate: failing });
    const client = new OpenAI({ baseURL: `${await broken.start()}/v1`, apiKey: 'unused', maxRetries: 0 });
    after(() => broken.close());
    let text = '';
    const chat = await client.chat.completions.create({ model: 'any', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const failure = await (async () => {
      for await (const chunk of chat) text += chunk.choices[0]?.delta.content ?? '';
    })().then(
      () => assert.fail('the stream ended as if whole'),
      (error: unknown) => error,
    );
    assert.ok(failure instanceof APIError, String(failure));
    assert.match(failure.message, /the decoder ran out of memory/);
    assert.equal(text, 'four more');
    const events: string[] = [];
    const response = await client.responses.create({ model: 'any', input: 'hi', stream: true });
    const failed = await (async () => {
      for await (const event of response) events.push(event.type);
    })().then(
      () => assert.fail('the stream ended as if whole'),
      (error: unknown) => error,
    );
    assert.ok(failed instanceof APIError && /the decoder ran out of memory/.test(failed.message), String(failed));
    assert.deepEqual(events.filter((type) => type === 'response.output_text.delta').length, 2);
  });
});

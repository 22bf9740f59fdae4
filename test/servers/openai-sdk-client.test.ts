import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import OpenAI, { APIError } from 'openai';
import { startQwen3Server } from '../support/qwen3.js';

// The real `openai` npm client, as users' tools drive the server: what it parses is what they get.
const { url } = await startQwen3Server();
const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', maxRetries: 0 });

const messages = [{ role: 'user' as const, content: 'hi' }];

describe('the openai npm client talks to the OpenAI-compatible server', () => {
  it('gets a chat completion', async () => {
    const answer = await client.chat.completions.create({ model: 'gymnast-test-model', messages, max_tokens: 12, seed: 3 });
    assert.equal(answer.object, 'chat.completion');
    assert.ok(answer.choices[0]!.message.content!.length > 0);
    assert.equal(answer.usage!.completion_tokens > 0, true);
  });

  it('streams a chat completion: `for await` over the chunks gets the same text, and the usage when asked', async () => {
    const whole = await client.chat.completions.create({ model: 'gymnast-test-model', messages, max_tokens: 12, seed: 3 });
    const stream = await client.chat.completions.create({
      model: 'gymnast-test-model',
      messages,
      max_tokens: 12,
      seed: 3,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    assert.equal(text, whole.choices[0]!.message.content);
    assert.equal(finish, whole.choices[0]!.finish_reason);
    assert.deepEqual(usage, whole.usage);
  });

  it("streams with the client's stream helper, which assembles the final completion", async () => {
    const whole = await client.chat.completions.create({ model: 'gymnast-test-model', messages, max_tokens: 12, seed: 3 });
    const final = await client.chat.completions.stream({ model: 'gymnast-test-model', messages, max_tokens: 12, seed: 3 }).finalChatCompletion();
    assert.equal(final.choices[0]!.message.content, whole.choices[0]!.message.content);
  });

  it('gets completions, streamed and not', async () => {
    const whole = await client.completions.create({ model: 'gymnast-test-model', prompt: 'What is 2+2?', max_tokens: 12, seed: 3 });
    assert.equal(whole.object, 'text_completion');
    let text = '';
    for await (const chunk of await client.completions.create({ model: 'gymnast-test-model', prompt: 'What is 2+2?', max_tokens: 12, seed: 3, stream: true }))
      text += chunk.choices[0]?.text ?? '';
    assert.equal(text, whole.choices[0]!.text);
  });

  it("gets each sampled token's logprob", async () => {
    const answer = await client.chat.completions.create({ model: 'gymnast-test-model', messages, max_tokens: 6, seed: 3, logprobs: true });
    const entries = answer.choices[0]!.logprobs!.content!;
    assert.equal(entries.length, answer.usage!.completion_tokens);
    assert.ok(entries.every((entry) => entry.logprob <= 0));
  });

  it('gets n choices', async () => {
    const answer = await client.chat.completions.create({ model: 'gymnast-test-model', messages, max_tokens: 6, seed: 3, n: 3 });
    assert.deepEqual(
      answer.choices.map((choice) => choice.index),
      [0, 1, 2],
    );
  });

  it("shows a refusal's status, message and parameter as the client's APIError", async () => {
    const refused = await client.chat.completions.create({ model: 'gymnast-test-model', messages, max_tokens: 6, presence_penalty: 0.5 }).then(
      () => assert.fail('expected a refusal'),
      (error: unknown) => error,
    );
    assert.ok(refused instanceof APIError);
    assert.equal(refused.status, 400);
    assert.match(refused.message, /^400 presence_penalty 0\.5 is not supported/);
    assert.equal(refused.param, 'presence_penalty');
  });
});

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, streamText } from 'ai';
import { InferenceServer } from '../../src/testing/index.js';
import { qwen3Template, qwen3Tokenizer } from '../support/qwen3.js';

// The real Vercel AI SDK, through its OpenAI-compatible provider (which speaks chat completions).
const tokenizer = await qwen3Tokenizer();
const server = new InferenceServer({ tokenizer, template: await qwen3Template() });
const url = await server.start();
after(() => server.close());
const model = createOpenAICompatible({ name: 'gymnast', baseURL: `${url}/v1`, includeUsage: true })('gymnast-test-model');

describe('the Vercel AI SDK talks to the OpenAI-compatible server', () => {
  it('generateText and streamText get the same text, and the usage', async () => {
    const whole = await generateText({ model, prompt: 'hi', maxOutputTokens: 12, seed: 3, maxRetries: 0 });
    assert.ok(whole.text.length > 0);
    const streamed = streamText({ model, prompt: 'hi', maxOutputTokens: 12, seed: 3, maxRetries: 0 });
    let text = '';
    for await (const part of streamed.textStream) text += part;
    assert.equal(text, whole.text);
    assert.equal((await streamed.usage).outputTokens, whole.usage.outputTokens);
  });
});

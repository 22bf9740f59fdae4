import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';
import { hermesToolCallParser } from '../../src/environments/tool-call-parser.js';
import { InferenceServer } from '../../src/testing/index.js';
import { qwen3Template, qwen3Tokenizer, startQwen3Server } from '../support/qwen3.js';

// The real Vercel AI SDK, through its OpenAI-compatible provider (which speaks chat completions).
const tokenizer = await qwen3Tokenizer();
const { url } = await startQwen3Server();
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

// The AI SDK's own OpenAI provider, whose default model speaks the Responses API, with tools.
const toolServer = new InferenceServer({
  tokenizer,
  template: await qwen3Template(),
  toolCallParser: hermesToolCallParser,
  respond: ({ text }) =>
    text.includes('<tool_response>')
      ? 'It is four.'
      : text.includes('"add"')
        ? '<tool_call>{"name": "add", "arguments": {"a": 2, "b": 2}}</tool_call>'
        : 'It is four, of course.',
});
const toolUrl = await toolServer.start();
after(() => toolServer.close());
const responsesModel = createOpenAI({ baseURL: `${toolUrl}/v1`, apiKey: 'unused' }).responses('gymnast-test-model');
const add = tool({ description: 'Adds two numbers', inputSchema: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => String(a + b) });

describe('the Vercel AI SDK talks to the server through the Responses API', () => {
  it('generateText and streamText get the same text, streamed a token at a time', async () => {
    const whole = await generateText({ model: responsesModel, prompt: 'What is 2+2?', maxRetries: 0 });
    assert.equal(whole.text, 'It is four, of course.');
    const streamed = streamText({ model: responsesModel, prompt: 'What is 2+2?', maxRetries: 0 });
    const parts: string[] = [];
    for await (const part of streamed.textStream) parts.push(part);
    assert.ok(parts.length > 1);
    assert.equal(parts.join(''), whole.text);
    assert.equal((await streamed.usage).outputTokens, whole.usage.outputTokens);
  });

  it('runs a tool loop: the model calls the tool, the SDK sends its result back, the model answers', async () => {
    const settings = { model: responsesModel, prompt: 'What is 2+2?', tools: { add }, stopWhen: stepCountIs(2), maxRetries: 0 };
    const whole = await generateText(settings);
    const streamed = streamText(settings);
    for (const [steps, text] of [
      [whole.steps, whole.text],
      [await streamed.steps, await streamed.text],
    ] as const) {
      assert.deepEqual(
        steps[0]!.toolCalls.map((call) => [call.toolName, call.input]),
        [['add', { a: 2, b: 2 }]],
      );
      assert.deepEqual(
        steps[0]!.toolResults.map((toolResult) => toolResult.output),
        ['4'],
      );
      assert.equal(text, 'It is four.');
    }
  });
});

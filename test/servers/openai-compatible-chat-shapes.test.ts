import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { hermesToolCallParser } from '../../src/environments/tool-call-parser.js';
import { InferenceServer } from '../../src/testing/index.js';
import { qwen3Template, qwen3Tokenizer } from '../support/qwen3.js';

const tokenizer = await qwen3Tokenizer();
/** A model that calls `add` whenever it was offered tools, and otherwise just answers. */
const server = new InferenceServer({
  tokenizer,
  template: await qwen3Template(),
  toolCallParser: hermesToolCallParser,
  respond: ({ text }) => (text.includes('"add"') ? 'Let me add.<tool_call>{"name": "add", "arguments": {"a": 2, "b": 2}}</tool_call>' : 'four'),
});
const url = await server.start();
after(() => server.close());

interface Choice {
  message: { role: string; content: string | null; tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[] };
  finish_reason: string;
  logprobs: { content: { token: string; logprob: number; top_logprobs: unknown[] }[] } | null;
}
interface Answer {
  status: number;
  body: { choices?: Choice[]; prompt_token_ids?: number[]; error?: { message: string; param: string | null } };
}

async function chat(body: Record<string, unknown>): Promise<Answer> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ max_tokens: 64, return_token_ids: true, ...body }),
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

const add = {
  type: 'function',
  function: { name: 'add', description: 'Adds two numbers', parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } },
};

describe('the chat route reads the shapes OpenAI clients send', () => {
  it('renders the developer role as system, and text parts as their joined text', async () => {
    const asSent = await chat({
      messages: [
        { role: 'developer', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is ' },
            { type: 'text', text: '2+2?' },
          ],
        },
      ],
    });
    const plain = await chat({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'what is 2+2?' },
      ],
    });
    assert.equal(asSent.status, 200);
    assert.deepEqual(asSent.body.prompt_token_ids, plain.body.prompt_token_ids);
  });

  it('refuses content parts a text model cannot read, naming the part', async () => {
    const answer = await chat({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'http://x/y.png' } }] }] });
    assert.equal(answer.status, 400);
    assert.match(answer.body.error!.param!, /^messages\.0\.content/);
  });

  it('reads an assistant turn with content null and tool_calls, and renders it as the template does', async () => {
    const call = { id: 'call_1', type: 'function', function: { name: 'add', arguments: '{"a":2,"b":2}' } };
    const answer = await chat({
      messages: [
        { role: 'user', content: 'add 2 and 2' },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: 'call_1', content: '4' },
      ],
    });
    assert.equal(answer.status, 200);
    const prompt = tokenizer.decode(answer.body.prompt_token_ids!);
    assert.match(prompt, /<tool_call>\n\{"name": "add", "arguments": \{"a": 2, "b": 2\}\}\n<\/tool_call>/);
    assert.match(prompt, /<tool_response>\n4\n<\/tool_response>/);
  });

  it('renders the tools offered into the prompt and returns the calls the model wrote, finishing with tool_calls', async () => {
    const answer = await chat({ messages: [{ role: 'user', content: 'what is 2+2?' }], tools: [add] });
    assert.equal(answer.status, 200);
    assert.match(tokenizer.decode(answer.body.prompt_token_ids!), /"name": "add"/);
    const [choice] = answer.body.choices!;
    assert.equal(choice!.finish_reason, 'tool_calls');
    assert.equal(choice!.message.content, 'Let me add.');
    assert.equal(choice!.message.tool_calls!.length, 1);
    assert.deepEqual(
      { ...choice!.message.tool_calls![0]!, id: undefined },
      { id: undefined, type: 'function', function: { name: 'add', arguments: '{"a":2,"b":2}' } },
    );
    assert.match(choice!.message.tool_calls![0]!.id, /^call_[0-9a-f]{24}$/);
  });

  it("returns the text as written when tool_choice is 'none', and refuses 'required', which it cannot enforce", async () => {
    const none = await chat({ messages: [{ role: 'user', content: 'what is 2+2?' }], tools: [add], tool_choice: 'none' });
    assert.match(none.body.choices![0]!.message.content!, /<tool_call>/);
    assert.equal(none.body.choices![0]!.message.tool_calls, undefined);
    const required = await chat({ messages: [{ role: 'user', content: 'hi' }], tools: [add], tool_choice: 'required' });
    assert.equal(required.status, 400);
    assert.equal(required.body.error!.param, 'tool_choice');
  });

  it('takes logprobs as a boolean with top_logprobs 0, or as the integer 0, and refuses alternatives it does not have', async () => {
    const messages = [{ role: 'user', content: 'hi' }];
    for (const asked of [{ logprobs: true }, { logprobs: true, top_logprobs: 0 }, { logprobs: 0 }]) {
      const answer = await chat({ messages, ...asked });
      assert.equal(answer.status, 200, JSON.stringify(asked));
      assert.ok(answer.body.choices![0]!.logprobs!.content.length > 0);
    }
    assert.equal((await chat({ messages, logprobs: false })).body.choices![0]!.logprobs, null);
    const top = await chat({ messages, logprobs: true, top_logprobs: 2 });
    assert.deepEqual([top.status, top.body.error!.param], [400, 'top_logprobs']);
    assert.match(top.body.error!.message, /only the sampled token's logprob/);
    const legacy = await chat({ messages, logprobs: 3 });
    assert.deepEqual([legacy.status, legacy.body.error!.param], [400, 'logprobs']);
    const completion = await fetch(`${url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'hi', logprobs: 2 }),
    });
    assert.equal(completion.status, 400);
    assert.equal(((await completion.json()) as Answer['body']).error!.param, 'logprobs');
  });
});

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import OpenAI, { APIError } from 'openai';
import { hermesToolCallParser } from '../../src/environments/tool-call-parser.js';
import { InferenceServer } from '../../src/testing/index.js';
import { qwen3Template, qwen3Tokenizer } from '../support/qwen3.js';

const tokenizer = await qwen3Tokenizer();
const server = new InferenceServer({
  tokenizer,
  template: await qwen3Template(),
  toolCallParser: hermesToolCallParser,
  respond: ({ text }) =>
    text.includes('"add"')
      ? 'Let me add.<tool_call>{"name": "add", "arguments": {"a": 2, "b": 2}}</tool_call>'
      : text.includes('slowly')
        ? 'It is four, of course.'
        : 'four',
});
const url = await server.start();
after(() => server.close());
// The real openai client, as NeMo Gym agents and the AI SDK's default OpenAI model call the Responses API.
const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', maxRetries: 0 });
const add = {
  type: 'function' as const,
  name: 'add',
  description: 'Adds',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
  strict: false,
};

interface TrainingItem {
  type: string;
  prompt_token_ids: number[];
  generation_token_ids: number[];
  generation_log_probs: number[];
}

describe('the OpenAI-compatible server answers the Responses API on the chat generation path', () => {
  it('answers a string input with an assistant message item carrying NeMo Gym training fields, and usage in input and output tokens', async () => {
    const response = await client.responses.create({ model: 'gymnast-test-model', input: 'What is 2+2?', instructions: 'Be brief.', max_output_tokens: 8 });
    assert.equal(response.object, 'response');
    assert.match(response.id, /^resp_/);
    assert.equal(response.status, 'completed');
    assert.equal(response.output_text, 'four');
    const [item] = response.output as unknown as TrainingItem[];
    assert.equal(item!.type, 'message');
    const prompt = tokenizer.decode(item!.prompt_token_ids);
    assert.match(prompt, /Be brief\.[\s\S]*What is 2\+2\?/, 'instructions are a system message before the input');
    assert.equal(tokenizer.decode(item!.generation_token_ids).startsWith('four'), true);
    assert.equal(item!.generation_log_probs.length, item!.generation_token_ids.length);
    assert.deepEqual([response.usage!.input_tokens, response.usage!.output_tokens], [item!.prompt_token_ids.length, item!.generation_token_ids.length]);
  });

  it('reads input items (developer, function calls and their outputs) and offers tools: a reply that calls one is a message then a function_call item, which carries the tokens', async () => {
    const response = await client.responses.create({
      model: 'gymnast-test-model',
      input: [
        { role: 'developer', content: 'Use tools.' },
        { role: 'user', content: [{ type: 'input_text', text: 'What is 2+2?' }] },
      ],
      tools: [add],
    });
    const [message, call] = response.output as unknown as (TrainingItem & { role?: string; name?: string; arguments?: string; call_id?: string })[];
    assert.deepEqual([message!.type, call!.type], ['message', 'function_call']);
    assert.deepEqual([call!.name, JSON.parse(call!.arguments!)], ['add', { a: 2, b: 2 }]);
    assert.ok(!('generation_token_ids' in message!), 'the tokens go on the call’s last item');
    assert.ok(call!.generation_token_ids.length > 0);
    assert.match(tokenizer.decode(call!.prompt_token_ids), /"name": "add"/, 'the tools are rendered into the prompt');

    const next = await client.responses.create({
      model: 'gymnast-test-model',
      input: [
        { role: 'user', content: 'What is 2+2?' },
        { type: 'function_call', call_id: call!.call_id!, name: 'add', arguments: call!.arguments! },
        { type: 'function_call_output', call_id: call!.call_id!, output: '4' },
      ],
    });
    assert.match(tokenizer.decode((next.output[0] as unknown as TrainingItem).prompt_token_ids), /<tool_response>\n4\n<\/tool_response>/);
  });

  it('says a reply cut at max_output_tokens is incomplete', async () => {
    const response = await client.responses.create({ model: 'gymnast-test-model', input: 'hi', max_output_tokens: 1 });
    assert.deepEqual([response.status, response.incomplete_details?.reason], ['incomplete', 'max_output_tokens']);
  });

  it('streams the same answer as typed events: text one token a delta, then the whole item with its training fields, then response.completed', async () => {
    const whole = await client.responses.create({ model: 'gymnast-test-model', input: 'What is 2+2? Say it slowly.', max_output_tokens: 16 });
    const stream = await client.responses.create({ model: 'gymnast-test-model', input: 'What is 2+2? Say it slowly.', max_output_tokens: 16, stream: true });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    assert.deepEqual(
      events.map((event) => event.sequence_number),
      events.map((_, i) => i),
    );
    assert.deepEqual([events[0]!.type, events.at(-1)!.type], ['response.created', 'response.completed']);
    const deltas = events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : []));
    assert.ok(deltas.length > 1, 'the text comes a token at a time');
    assert.equal(deltas.join(''), whole.output_text);
    const done = events.find((event) => event.type === 'response.output_item.done');
    const item = (done as unknown as { item: TrainingItem }).item;
    assert.deepEqual(tokenizer.decode(item.generation_token_ids), tokenizer.decode((whole.output[0] as unknown as TrainingItem).generation_token_ids));
    assert.equal(item.generation_log_probs.length, item.generation_token_ids.length);
  });

  it("streams through the client's stream helper, which assembles the final response", async () => {
    const final = await client.responses.stream({ model: 'gymnast-test-model', input: 'What is 2+2?', max_output_tokens: 8 }).finalResponse();
    assert.equal(final.output_text, 'four');
    assert.equal(final.status, 'completed');
  });

  it('streams a function call as an item whose arguments arrive as deltas', async () => {
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of await client.responses.create({ model: 'gymnast-test-model', input: 'What is 2+2?', tools: [add], stream: true }))
      events.push(event);
    const added = events.filter((event) => event.type === 'response.output_item.added').map((event) => event.item.type);
    assert.deepEqual(added, ['message', 'function_call']);
    const args = events.flatMap((event) => (event.type === 'response.function_call_arguments.delta' ? [event.delta] : [])).join('');
    assert.deepEqual(JSON.parse(args), { a: 2, b: 2 });
  });

  it('ends a stream cut at max_output_tokens with response.incomplete', async () => {
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of await client.responses.create({ model: 'gymnast-test-model', input: 'hi', max_output_tokens: 1, stream: true }))
      events.push(event);
    const last = events.at(-1)!;
    assert.equal(last.type, 'response.incomplete');
    assert.equal((last as { response: OpenAI.Responses.Response }).response.incomplete_details?.reason, 'max_output_tokens');
  });

  it('refuses store true (nothing is kept) and unknown fields with a 400 naming them', async () => {
    const refused = await fetch(`${url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'hi', store: true }),
    });
    assert.equal(refused.status, 400);
    assert.equal(((await refused.json()) as { error: { param: string } }).error.param, 'store');
    const error = await client.responses
      .create({ model: 'gymnast-test-model', input: 'hi', previous_response_id: 'resp_1' })
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof APIError && error.status === 400 && /previous_response_id/.test(error.message));
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import OpenAI, { APIError } from 'openai';
import { hermesToolCallParser } from '../../src/environments/tool-call-parser.js';
import { startQwen3Server } from '../support/qwen3.js';

// The real `openai` client: its types allow null for most parameters and it sends null as written;
// OpenAI reads null as "not set". Each route must too, and must take the values that ask for what the
// server does anyway, refusing (naming field, value and why) only what it cannot honour.
const { url } = await startQwen3Server({ toolCallParser: hermesToolCallParser });
const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', maxRetries: 0 });
const model = 'gymnast-test-model';

type Body = Record<string, unknown>;
const completion = (extra: Body) =>
  client.completions.create({ model, prompt: 'What is 2+2?', max_tokens: 8, seed: 3, ...extra } as OpenAI.CompletionCreateParamsNonStreaming);
const chat = (extra: Body) =>
  client.chat.completions.create({
    model,
    messages: [{ role: 'user', content: 'hi' }],
    max_tokens: 8,
    seed: 3,
    ...extra,
  } as OpenAI.ChatCompletionCreateParamsNonStreaming);
const response = (extra: Body) =>
  client.responses.create({ model, input: 'hi', max_output_tokens: 8, ...extra } as OpenAI.Responses.ResponseCreateParamsNonStreaming);

/** What the answer says, without its per-response id and clock. */
const said = {
  completion: (answer: OpenAI.Completion) => answer.choices.map((choice) => [choice.text, choice.finish_reason]),
  chat: (answer: OpenAI.ChatCompletion) => answer.choices.map((choice) => [choice.message.content, choice.finish_reason]),
  response: (answer: OpenAI.Responses.Response) => [answer.output_text, answer.status],
};

/** Every parameter the openai SDK (7.57) types as `T | null` on each route (`prompt` aside: it is required). */
const nullable = {
  completion: [
    'best_of',
    'echo',
    'frequency_penalty',
    'logit_bias',
    'logprobs',
    'max_tokens',
    'n',
    'presence_penalty',
    'seed',
    'stop',
    'stream',
    'stream_options',
    'suffix',
    'temperature',
    'top_p',
  ],
  chat: [
    'audio',
    'frequency_penalty',
    'logit_bias',
    'logprobs',
    'max_completion_tokens',
    'max_tokens',
    'metadata',
    'modalities',
    'moderation',
    'n',
    'prediction',
    'presence_penalty',
    'prompt_cache_key',
    'prompt_cache_retention',
    'reasoning_effort',
    'safety_identifier',
    'seed',
    'service_tier',
    'stop',
    'store',
    'stream',
    'stream_options',
    'temperature',
    'top_logprobs',
    'top_p',
    'verbosity',
  ],
  response: [
    'background',
    'context_management',
    'conversation',
    'include',
    'instructions',
    'max_output_tokens',
    'max_tool_calls',
    'metadata',
    'moderation',
    'parallel_tool_calls',
    'previous_response_id',
    'prompt',
    'prompt_cache_key',
    'prompt_cache_retention',
    'reasoning',
    'safety_identifier',
    'service_tier',
    'store',
    'stream',
    'stream_options',
    'temperature',
    'top_logprobs',
    'top_p',
    'truncation',
  ],
};

/** The refusal the client shows, or a failure if the request was served. */
async function refusal(request: Promise<unknown>): Promise<APIError> {
  const error = await request.then(
    () => assert.fail('expected a refusal'),
    (error: unknown) => error,
  );
  assert.ok(error instanceof APIError, String(error));
  return error;
}

describe('the OpenAI-compatible server reads null as "not set" and takes harmless defaults, as OpenAI does', () => {
  it('answers a parameter sent as null exactly as if it were left out, on completions, chat and Responses', async () => {
    // Left out: `undefined` is dropped when the body is written.
    for (const param of nullable.completion)
      assert.deepEqual(
        said.completion(await completion({ [param]: null })),
        said.completion(await completion({ [param]: undefined })),
        `completions ${param}: null`,
      );
    for (const param of nullable.chat)
      assert.deepEqual(said.chat(await chat({ [param]: null })), said.chat(await chat({ [param]: undefined })), `chat ${param}: null`);
    for (const param of nullable.response)
      assert.deepEqual(said.response(await response({ [param]: null })), said.response(await response({ [param]: undefined })), `responses ${param}: null`);
  });

  it('reads a null limit as its default, not as zero: completions 16 tokens, chat and Responses the rest of the context', async () => {
    const completed = await client.completions.create({ model, prompt: 'What is 2+2?', max_tokens: null, seed: 3 });
    assert.equal(completed.usage!.completion_tokens <= 16, true);
    const answer = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: null, max_completion_tokens: null });
    assert.equal(answer.choices[0]!.finish_reason, 'stop');
    assert.equal((await client.responses.create({ model, input: 'hi', max_output_tokens: null })).status, 'completed');
  });

  it('takes the values that ask for what the server does anyway', async () => {
    const labels = {
      metadata: { team: 'rl', run: '7' },
      prompt_cache_key: 'episode-1',
      prompt_cache_retention: 'in_memory',
      safety_identifier: 'user-hash',
      user: 'someone',
    };
    const chatDefaults: Body = {
      ...labels,
      store: false,
      service_tier: 'auto',
      modalities: ['text'],
      parallel_tool_calls: true,
      verbosity: 'medium',
      stream_options: null,
      logprobs: false,
      top_logprobs: 0,
    };
    assert.deepEqual(said.chat(await chat(chatDefaults)), said.chat(await chat({})));
    assert.deepEqual(said.chat(await chat({ service_tier: 'default' })), said.chat(await chat({})));
    const responseDefaults: Body = {
      ...labels,
      store: false,
      service_tier: 'auto',
      truncation: 'disabled',
      parallel_tool_calls: true,
      background: false,
      include: [],
      top_logprobs: 0,
      text: { format: { type: 'text' } },
      reasoning: {},
    };
    assert.deepEqual(said.response(await response(responseDefaults)), said.response(await response({})));
    assert.deepEqual(said.completion(await completion({ best_of: 1, suffix: '', user: 'someone' })), said.completion(await completion({})));
    assert.deepEqual(said.completion(await completion({ n: 2, best_of: 2 })), said.completion(await completion({ n: 2 })));
  });

  it('takes parallel_tool_calls false when no reply is read for tool calls: at most one call is then trivially kept', async () => {
    assert.deepEqual(said.chat(await chat({ parallel_tool_calls: false })), said.chat(await chat({})));
    assert.deepEqual(said.response(await response({ parallel_tool_calls: false })), said.response(await response({})));
  });

  it('refuses every value it cannot honour with a 400 naming the field, the value and why, in OpenAI’s error shape', async () => {
    const tool = { type: 'function', function: { name: 'add', parameters: { type: 'object', properties: {} } } };
    const cases: [string, (extra: Body) => Promise<unknown>, Body, RegExp][] = [
      ['store', chat, { store: true }, /^store true is not supported: this server keeps no completions/],
      ['service_tier', chat, { service_tier: 'flex' }, /^service_tier "flex" is not supported: this server has one processing tier/],
      ['modalities', chat, { modalities: ['text', 'audio'] }, /^modalities \["text","audio"\] is not supported: this server answers in text only/],
      ['audio', chat, { audio: { voice: 'alloy', format: 'mp3' } }, /^audio .* is not supported: this server answers in text only/],
      ['reasoning_effort', chat, { reasoning_effort: 'high' }, /^reasoning_effort "high" is not supported: .*chat_template_kwargs/],
      ['verbosity', chat, { verbosity: 'low' }, /^verbosity "low" is not supported/],
      ['prediction', chat, { prediction: { type: 'content', content: 'four' } }, /^prediction .* is not supported/],
      ['web_search_options', chat, { web_search_options: {} }, /^web_search_options \{\} is not supported: this server searches nothing/],
      ['parallel_tool_calls', chat, { parallel_tool_calls: false, tools: [tool] }, /^parallel_tool_calls false is not supported: .*several calls/],
      ['stream_options.include_obfuscation', chat, { stream: true, stream_options: { include_obfuscation: true } }, /include_obfuscation/],
      ['best_of', completion, { best_of: 3 }, /^best_of 3 is not supported: this server returns every choice it samples/],
      ['suffix', completion, { suffix: ' and so on' }, /^suffix " and so on" is not supported: this server does not fill in the middle/],
      ['store', response, { store: true }, /^store true is not supported: this server keeps no responses/],
      [
        'previous_response_id',
        response,
        { previous_response_id: 'resp_123' },
        /^previous_response_id "resp_123" is not supported: this server keeps no responses/,
      ],
      ['conversation', response, { conversation: 'conv_1' }, /^conversation "conv_1" is not supported/],
      ['background', response, { background: true }, /^background true is not supported/],
      ['truncation', response, { truncation: 'auto' }, /^truncation "auto" is not supported: .*drop/],
      ['service_tier', response, { service_tier: 'priority' }, /^service_tier "priority" is not supported/],
      ['include', response, { include: ['message.output_text.logprobs'] }, /^include \["message.output_text.logprobs"\] is not supported/],
      ['reasoning', response, { reasoning: { effort: 'high' } }, /^reasoning \{"effort":"high"\} is not supported/],
      ['top_logprobs', response, { top_logprobs: 2 }, /^top_logprobs is 2: this server returns only the sampled token's logprob/],
      ['text', response, { text: { format: { type: 'json_object' } } }, /^text .* is not supported: this server writes plain text only/],
      [
        'parallel_tool_calls',
        response,
        { parallel_tool_calls: false, tools: [{ type: 'function', name: 'add', parameters: { type: 'object', properties: {} }, strict: false }] },
        /^parallel_tool_calls false is not supported/,
      ],
    ];
    for (const [param, route, extra, message] of cases) {
      const error = await refusal(route(extra));
      assert.equal(error.status, 400, `${param}: ${error.message}`);
      assert.equal(error.param, param, error.message);
      assert.equal(error.code, 'unsupported_parameter', `${param}: ${error.message}`);
      assert.equal(error.type, 'invalid_request_error');
      assert.match(error.message.replace(/^400 /, ''), message);
    }
  });

  it('still refuses a field no OpenAI API defines, null or not: null is "not set" only for what the server reads', async () => {
    for (const route of [completion, chat, response]) {
      const error = await refusal(route({ temprature: null }));
      assert.deepEqual([error.status, error.param, error.code], [400, 'temprature', 'unknown_parameter']);
    }
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BackendRecipe } from '../../src/policy/backend-recipe.js';
import { chatCompletionsBackend, sglangGenerateBackend, vllmCompletionsBackend } from '../../src/policy/index.js';
import { oneChangeVariants, withUndefinedKeys } from '../support/one-change-variants.js';

/** vLLM 0.10's `/v1/completions` answer to gymnast's request (return_token_ids, logprobs 0, ids as tokens), every field it sends. */
const vllmAnswer = {
  id: 'cmpl-5f1c',
  object: 'text_completion',
  created: 1_760_000_000,
  model: 'Qwen/Qwen3-0.6B',
  choices: [
    {
      index: 0,
      text: ' ok<|im_end|>',
      logprobs: {
        text_offset: [0, 3],
        token_logprobs: [-0.5, -0.125],
        tokens: ['token_id:562', 'token_id:151645'],
        top_logprobs: [{ 'token_id:562': -0.5 }, { 'token_id:151645': -0.125 }],
      },
      finish_reason: 'stop',
      stop_reason: null,
      token_ids: [562, 151645],
      prompt_logprobs: null,
      prompt_token_ids: [1, 2, 3],
    },
  ],
  service_tier: null,
  system_fingerprint: null,
  usage: { prompt_tokens: 3, total_tokens: 5, completion_tokens: 2, prompt_tokens_details: null },
  kv_transfer_params: null,
};

/** vLLM 0.10's `/v1/chat/completions` answer (return_token_ids, logprobs), every field it sends. */
const vllmChatAnswer = {
  id: 'chatcmpl-9a0b',
  object: 'chat.completion',
  created: 1_760_000_000,
  model: 'Qwen/Qwen3-0.6B',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: 'ok',
        refusal: null,
        annotations: null,
        audio: null,
        function_call: null,
        tool_calls: [],
        reasoning_content: null,
      },
      logprobs: {
        content: [
          { token: 'token_id:562', logprob: -0.5, bytes: [111, 107], top_logprobs: [] },
          { token: 'token_id:151645', logprob: -0.125, bytes: null, top_logprobs: [] },
        ],
      },
      finish_reason: 'stop',
      stop_reason: null,
      token_ids: [562, 151645],
    },
  ],
  service_tier: null,
  system_fingerprint: null,
  usage: { prompt_tokens: 3, total_tokens: 5, completion_tokens: 2, prompt_tokens_details: null },
  prompt_logprobs: null,
  prompt_token_ids: [1, 2, 3],
  kv_transfer_params: null,
};

/** SGLang's native `/generate` answer (return_logprob, return_prompt_token_ids), every field it sends. */
const sglangAnswer = {
  text: 'ok',
  output_ids: [562, 151645],
  prompt_token_ids: [1, 2, 3],
  meta_info: {
    id: '5c1d',
    finish_reason: { type: 'stop', matched: 151_645 },
    prompt_tokens: 3,
    completion_tokens: 2,
    cached_tokens: 0,
    e2e_latency: 0.05,
    output_token_logprobs: [
      [-0.5, 562, null],
      [-0.125, 151_645, null],
    ],
  },
};

/** Each backend's answers: one as its server sends it, then others that use the rest of the schema. */
const cases: { backend: BackendRecipe<unknown>; answers: unknown[] }[] = [
  {
    backend: vllmCompletionsBackend as BackendRecipe<unknown>,
    answers: [
      vllmAnswer,
      { choices: [{ text: '', finish_reason: null }], usage: { prompt_tokens: 0, completion_tokens: 0 } },
      {
        choices: [
          { text: 'a', token_ids: null, logprobs: null, finish_reason: 'length', stop_reason: 151_645 },
          { text: 'b', token_ids: [], logprobs: { token_logprobs: [null, -1] }, finish_reason: 'stop', stop_reason: '</tool_call>', policy_version: 2 },
        ],
        usage: { prompt_tokens: 1, completion_tokens: 2 },
      },
    ],
  },
  {
    backend: chatCompletionsBackend('vllm') as BackendRecipe<unknown>,
    answers: [
      vllmChatAnswer,
      // SGLang's: the prompt's ids on the choice.
      {
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: null },
            logprobs: { content: null },
            finish_reason: null,
            matched_stop: 151_645,
            prompt_token_ids: [1, 2],
            token_ids: null,
          },
        ],
        usage: { prompt_tokens: 2, completion_tokens: 0 },
      },
      {
        choices: [
          { message: { content: '' }, logprobs: null, finish_reason: 'length', prompt_token_ids: null },
          { message: { content: 'b' }, finish_reason: 'stop' },
        ],
        prompt_token_ids: null,
        usage: { prompt_tokens: 0, completion_tokens: 0 },
      },
    ],
  },
  {
    backend: sglangGenerateBackend as BackendRecipe<unknown>,
    answers: [
      sglangAnswer,
      { text: '', meta_info: { finish_reason: null, prompt_tokens: 0, completion_tokens: 0 } },
      {
        text: 'a',
        output_ids: [],
        meta_info: { finish_reason: { type: 'length', matched: null }, prompt_tokens: 1, completion_tokens: 0, output_token_logprobs: [[-1, 2, 'a']] },
      },
    ],
  },
];

const REPLACEMENTS: unknown[] = [
  undefined,
  null,
  -1,
  0,
  -0,
  1.5,
  -0.5,
  2 ** 53,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  'x',
  '',
  true,
  {},
  [],
  [1.5],
  ['x'],
  [null],
  { zz: 1 },
];

/** Every object's keys in order, nested ones included: what a reader hands on must be laid out as the schema's. */
function layout(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(layout);
  if (typeof value !== 'object' || value === null) return typeof value;
  return Object.entries(value).map(([key, item]) => [key, layout(item)]);
}

describe("the backends' hand-read answers (readResponse)", () => {
  for (const { backend, answers } of cases) {
    it(`${backend.name}: read exactly as its schema reads them, for every one-field change of an answer`, () => {
      const read = backend.readResponse!;
      let checked = 0;
      for (const [n, answer] of answers.entries()) {
        assert.notEqual(read(answer), undefined, `answer ${n} is read by hand`);
        for (const variant of [answer, ...oneChangeVariants(answer, { replacements: REPLACEMENTS, maxDepth: 6, reshape: true })].map(withUndefinedKeys)) {
          const bySchema = backend.responseSchema.safeParse(variant);
          const byHand = read(variant);
          assert.equal(
            byHand !== undefined,
            bySchema.success,
            `the hand check ${byHand === undefined ? 'refuses' : 'accepts'} what the schema ${bySchema.success ? 'accepts' : 'refuses'}: ${JSON.stringify(variant)}`,
          );
          if (bySchema.success) {
            assert.deepEqual(byHand, bySchema.data, JSON.stringify(variant));
            assert.deepEqual(layout(byHand), layout(bySchema.data), `same keys in the same order: ${JSON.stringify(variant)}`);
          }
          checked += 1;
        }
      }
      assert.ok(checked > 300, `${checked} variants`);
    });
  }
});

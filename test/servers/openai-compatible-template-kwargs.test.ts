import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { qwen3Tokenizer, startQwen3Server } from '../support/qwen3.js';

// Issue 12: a parameter is honoured or refused with a 400 naming it, never accepted and ignored.
const tokenizer = await qwen3Tokenizer();
const { url } = await startQwen3Server();

interface Answer {
  status: number;
  body: { prompt_token_ids?: number[]; tokens?: number[]; error?: { message: string; param: string | null } };
}
async function post(path: string, body: Record<string, unknown>): Promise<Answer> {
  const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}
const messages = [{ role: 'user', content: 'What is 2+2?' }];
const chat = (extra: Record<string, unknown>) => post('/v1/chat/completions', { messages, max_tokens: 2, seed: 1, return_token_ids: true, ...extra });
const refusal = (answer: Answer) => [answer.status, answer.body.error?.param];

describe('chat_template_kwargs reach the chat template as variables', () => {
  it("enable_thinking false adds Qwen3's empty think block to the generation prompt, in prompt_token_ids and /tokenize", async () => {
    const thinking = await chat({});
    const notThinking = await chat({ chat_template_kwargs: { enable_thinking: false } });
    assert.equal(notThinking.status, 200, JSON.stringify(notThinking.body));
    assert.deepEqual(thinking.body.prompt_token_ids, tokenizer.encode('<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n'));
    assert.deepEqual(
      notThinking.body.prompt_token_ids,
      tokenizer.encode('<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n'),
    );
    const tokenized = await post('/tokenize', { messages, chat_template_kwargs: { enable_thinking: false } });
    assert.deepEqual(tokenized.body.tokens, notThinking.body.prompt_token_ids);
    assert.deepEqual((await chat({ chat_template_kwargs: { enable_thinking: true } })).body.prompt_token_ids, thinking.body.prompt_token_ids);
  });

  it('refuses kwargs that name what the server sets itself, and rendering fields sent with a plain prompt', async () => {
    assert.deepEqual(refusal(await chat({ chat_template_kwargs: { add_generation_prompt: false } })), [400, 'chat_template_kwargs.add_generation_prompt']);
    assert.deepEqual(refusal(await post('/tokenize', { messages, chat_template_kwargs: { messages: [] } })), [400, 'chat_template_kwargs.messages']);
    assert.deepEqual(refusal(await post('/tokenize', { prompt: 'hi', chat_template_kwargs: { enable_thinking: false } })), [400, 'chat_template_kwargs']);
    assert.deepEqual(refusal(await post('/tokenize', { prompt: 'hi', unknown_field: 1 })), [400, 'unknown_field']);
    assert.equal((await post('/tokenize', { prompt: 'hi', messages })).status, 400);
  });
});

describe('add_special_tokens is accepted only as what the server does: false', () => {
  it('takes false on completions, chat and /tokenize, and refuses true naming it', async () => {
    assert.equal((await post('/v1/completions', { prompt: [1, 2, 3], max_tokens: 2, add_special_tokens: false })).status, 200);
    assert.equal((await chat({ add_special_tokens: false })).status, 200);
    assert.equal((await post('/tokenize', { prompt: 'hi', add_special_tokens: false })).status, 200);
    assert.deepEqual(refusal(await post('/v1/completions', { prompt: 'hi', max_tokens: 2, add_special_tokens: true })), [400, 'add_special_tokens']);
    assert.deepEqual(refusal(await chat({ add_special_tokens: true })), [400, 'add_special_tokens']);
    assert.deepEqual(refusal(await post('/tokenize', { messages, add_special_tokens: true })), [400, 'add_special_tokens']);
  });
});

describe('SGLang /generate reads its body strictly', () => {
  it("takes every field gymnast's sglang-generate backend sends", async () => {
    const answer = await post('/generate', {
      input_ids: tokenizer.encode('hi'),
      sampling_params: {
        max_new_tokens: 2,
        temperature: 1,
        top_p: 1,
        top_k: 5,
        sampling_seed: 3,
        stop: [],
        stop_token_ids: [],
        no_stop_trim: true,
        skip_special_tokens: false,
      },
      return_logprob: true,
      logprob_start_len: -1,
      rid: 'session-1',
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  });

  it('refuses unknown fields at the top and in sampling_params with a 400 naming them, and prompt logprobs', async () => {
    const ids = tokenizer.encode('hi');
    assert.deepEqual(refusal(await post('/generate', { input_ids: ids, return_text_in_logprobs: true })), [400, 'return_text_in_logprobs']);
    assert.deepEqual(refusal(await post('/generate', { input_ids: ids, sampling_params: { max_new_tokens: 2, min_p: 0.1 } })), [400, 'sampling_params.min_p']);
    assert.deepEqual(refusal(await post('/generate', { input_ids: ids, logprob_start_len: 0 })), [400, 'logprob_start_len']);
  });
});

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { z } from 'zod';
import { JsonClient } from '../../src/policy/index.js';
import { TemplateRenderer, TokenLedger } from '../../src/tokens/index.js';
import { nemoRlGoldenPrompts } from '../support/nemo-rl-golden.js';
import { startServers } from '../support/loopback-model.js';
import { qwen3Template, qwen3Tokenizer } from '../support/qwen3.js';

const [vllm] = await startServers(1, { maxModelLen: 4_096 });
const [sglang] = await startServers(1, { flavor: 'sglang' });
const client = new JsonClient();
after(async () => {
  await client.close();
  await Promise.all([vllm!.close(), sglang!.close()]);
});

const post = <T>(baseUrl: string, path: string, body: unknown, schema: z.ZodType<T>) =>
  client.request({ method: 'POST', baseUrl, path, body, schema, timeoutMs: 5_000 });

describe('the test inference server', () => {
  // The server renders with gymnast's template and tokenizer, as the client does: agreeing with each other proves nothing; both must give NeMo RL's ids.
  for (const [row, golden] of nemoRlGoldenPrompts().entries()) {
    it(`tokenizes NeMo RL's golden prompt ${row} (messages with tools) to the ids NeMo RL recorded, on /tokenize and as a chat completion's prompt ids, as gymnast's renderer does`, async () => {
      const tokenizer = await qwen3Tokenizer();
      const local = new TemplateRenderer(tokenizer, await qwen3Template())
        .renderDelta(new TokenLedger(tokenizer), [], golden.messages, { addGenerationPrompt: true, tools: golden.tools })
        .tokenIds.flat();
      const tokenized = await post(
        vllm!.url,
        '/tokenize',
        { messages: golden.messages, tools: golden.tools },
        z.object({ tokens: z.array(z.number()), count: z.number(), max_model_len: z.number() }),
      );
      const chat = await post(
        vllm!.url,
        '/v1/chat/completions',
        { messages: golden.messages, tools: golden.tools, max_tokens: 1, return_token_ids: true },
        z.object({ prompt_token_ids: z.array(z.number()) }),
      );
      assert.deepEqual(local, golden.ids);
      assert.deepEqual(tokenized.tokens, golden.ids);
      assert.deepEqual(chat.prompt_token_ids, golden.ids);
      assert.deepEqual([tokenized.count, tokenized.max_model_len], [golden.ids.length, 4_096]);
    });
  }

  it('detokenizes with the field name of the server it imitates', async () => {
    const ids = (await qwen3Tokenizer()).encode('hello world');
    assert.deepEqual(await post(vllm!.url, '/detokenize', { tokens: ids }, z.object({ prompt: z.string() })), { prompt: 'hello world' });
    assert.deepEqual(await post(sglang!.url, '/detokenize', { tokens: ids }, z.object({ text: z.string() })), { text: 'hello world' });
  });

  it('puts chat prompt ids at the top level like vLLM, or on the choice like SGLang', async () => {
    const body = { messages: [{ role: 'user', content: 'hi' }], max_tokens: 8, return_token_ids: true, return_prompt_token_ids: true };
    const schema = z.object({
      prompt_token_ids: z.array(z.number()).optional(),
      choices: z.array(z.object({ prompt_token_ids: z.array(z.number()).optional() })),
    });
    const fromVllm = await post(vllm!.url, '/v1/chat/completions', body, schema);
    const fromSglang = await post(sglang!.url, '/v1/chat/completions', body, schema);
    assert.ok(fromVllm.prompt_token_ids && !fromVllm.choices[0]!.prompt_token_ids);
    assert.ok(!fromSglang.prompt_token_ids && fromSglang.choices[0]!.prompt_token_ids);
  });

  it('cuts at a stop string, keeping it only when asked (include_stop_str_in_output)', async () => {
    const request = (include: boolean) => ({
      prompt: [1, 2, 3],
      max_tokens: 50,
      stop: ['</tool_call>'],
      include_stop_str_in_output: include,
      return_token_ids: true,
    });
    const schema = z.object({ choices: z.array(z.object({ text: z.string(), token_ids: z.array(z.number()), stop_reason: z.unknown() })) });
    const kept = await post(vllm!.url, '/v1/completions', request(true), schema);
    const trimmed = await post(vllm!.url, '/v1/completions', request(false), schema);
    assert.ok(kept.choices[0]!.text.endsWith('</tool_call>'));
    assert.ok(!trimmed.choices[0]!.text.includes('</tool_call>'));
    assert.deepEqual(kept.choices[0]!.token_ids, trimmed.choices[0]!.token_ids);
    assert.equal(kept.choices[0]!.stop_reason, '</tool_call>');
  });
});

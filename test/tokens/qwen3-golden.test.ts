import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { ResponsesItem, ResponsesTool, TokenLedger, TemplateRenderer, responsesInputToMessages, responsesToolsToChatTools } from '../../src/tokens/index.js';
import { qwen3Template, qwen3Tokenizer } from '../support/qwen3.js';

const Golden = z.object({
  input: z.array(z.object({ responses_create_params: z.object({ input: z.array(ResponsesItem), tools: z.array(ResponsesTool) }) })),
  expected_output: z.array(z.object({ input_message_log: z.array(z.object({ token_ids: z.array(z.number()) })) })),
});
const golden = Golden.parse(JSON.parse(readFileSync(new URL('../fixtures/nemo-rl/test_nemo_gym_sanity.json', import.meta.url), 'utf8')));

describe('NeMo RL golden prompt ids (Qwen3 template + tokenizer)', () => {
  for (const [row, { responses_create_params: params }] of golden.input.entries()) {
    it(`row ${row}: conversion + template + tokenizer give exactly NeMo RL's prompt ids`, async () => {
      const tokenizer = await qwen3Tokenizer();
      const renderer = new TemplateRenderer(tokenizer, await qwen3Template());
      const messages = responsesInputToMessages(params.input);
      const tools = responsesToolsToChatTools(params.tools);
      const { tokenIds } = renderer.renderDelta(new TokenLedger(tokenizer), [], messages, { addGenerationPrompt: true, tools });
      const expected = golden.expected_output[row]!.input_message_log[0]!.token_ids;
      assert.equal(tokenIds.flat().length, expected.length);
      assert.deepEqual(tokenIds.flat(), expected);
    });
  }

  it('row 0 is 3,080 tokens, as NeMo RL recorded', () => {
    assert.equal(golden.expected_output[0]!.input_message_log[0]!.token_ids.length, 3080);
  });
});

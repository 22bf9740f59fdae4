import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { ChatTool, Message } from '../../src/core/index.js';
import { ResponsesItem, ResponsesTool, responsesInputToMessages, responsesToolsToChatTools } from '../../src/tokens/index.js';

const Golden = z.object({
  input: z.array(z.object({ responses_create_params: z.object({ input: z.array(ResponsesItem), tools: z.array(ResponsesTool) }) })),
  expected_output: z.array(z.object({ input_message_log: z.tuple([z.object({ token_ids: z.array(z.number()).min(1) })]) })),
});

/** One of NeMo RL's golden prompts: a NeMo Gym row as chat messages and tools, and the prompt ids NeMo RL's Qwen3 tokenizer gave it. */
export interface GoldenPrompt {
  messages: Message[];
  tools: ChatTool[];
  ids: number[];
}

/**
 * NeMo RL's two golden prompts (test/fixtures/nemo-rl/test_nemo_gym_sanity.json): ids NeMo RL
 * recorded with Hugging Face's Qwen3 template and tokenizer, an implementation other than gymnast's.
 * Exactly two, or the fixture is not the one the specs were written against.
 */
export function nemoRlGoldenPrompts(): GoldenPrompt[] {
  const golden = Golden.parse(JSON.parse(readFileSync(new URL('../fixtures/nemo-rl/test_nemo_gym_sanity.json', import.meta.url), 'utf8')));
  if (golden.input.length !== 2 || golden.expected_output.length !== 2) throw new Error("test_nemo_gym_sanity.json: expected NeMo RL's two golden rows");
  return golden.input.map(({ responses_create_params: params }, row) => ({
    messages: responsesInputToMessages(params.input),
    tools: responsesToolsToChatTools(params.tools),
    ids: golden.expected_output[row]!.input_message_log[0].token_ids,
  }));
}

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { collect } from '../../src/collect/collect-run.js';
import { SamplingParams } from '../../src/core/index.js';
import { ScriptedPolicy } from '../../src/testing/index.js';
import { CharTokenizer, PlainChatTemplate, TemplateRenderer } from '../../src/tokens/index.js';

interface OutputItem {
  type: string;
  role?: string;
  prompt_token_ids?: number[];
  generation_token_ids?: number[];
  generation_log_probs?: number[];
}
interface Row {
  response: { output: OutputItem[] };
  messages: { role: string; token_ids: number[]; generation_logprobs?: number[] }[];
}

/** One arithmetic task answered wrong, then right: two model calls with an observation between them. */
async function twoTurnRow(): Promise<Row> {
  const tokenizer = new CharTokenizer();
  const dir = mkdtempSync(join(tmpdir(), 'gymnast-training-tokens-'));
  const input = join(dir, 'in.jsonl');
  writeFileSync(input, `${JSON.stringify({ responses_create_params: { input: [{ role: 'user', content: 'what is 1+2?' }] }, agent_ref: { name: 'arithmetic' }, problem: '1+2', answer: 3 })}\n`);
  const output = join(dir, 'rollouts.jsonl');
  const policy = new ScriptedPolicy({ tokenizer, script: [{ text: '4' }, { text: '3' }] });
  await collect({ input, output, concurrency: 1, policy, renderer: new TemplateRenderer(tokenizer, new PlainChatTemplate()), maxSeqLen: 512, maxTurns: 4, sampling: SamplingParams.parse({ max_tokens: 16, seed: 1 }) });
  return JSON.parse(readFileSync(output, 'utf8').trim()) as Row;
}

/**
 * NeMo RL's `_postprocess_nemo_gym_to_nemo_rl_result`: the items with generation tokens, in order,
 * each prompt continuing what was seen ("Non-contiguous messages found!" otherwise), as a message log.
 */
function nemoRlMessageLog(output: readonly OutputItem[]): { role: string; token_ids: number[]; generation_logprobs?: number[] }[] {
  const log: { role: string; token_ids: number[]; generation_logprobs?: number[] }[] = [];
  let seen: number[] = [];
  for (const item of output) {
    if (!item.generation_token_ids?.length) continue;
    const prompt = item.prompt_token_ids!;
    assert.deepEqual(prompt.slice(0, seen.length), seen, 'Non-contiguous messages found!');
    log.push({ role: 'user', token_ids: prompt.slice(seen.length) });
    log.push({ role: 'assistant', token_ids: item.generation_token_ids, generation_logprobs: item.generation_log_probs! });
    seen = [...prompt, ...item.generation_token_ids];
  }
  assert.ok(log.length > 0, 'no trainable items');
  return log;
}

describe("response.output in NeMo Gym's training shape", () => {
  it("carries each model call's prompt, generation and logprobs, from which NeMo RL rebuilds the exact token sequence of the messages", async () => {
    const row = await twoTurnRow();
    const trained = row.response.output.filter((item) => item.generation_token_ids !== undefined);
    assert.deepEqual(trained.map((item) => [item.type, item.role]), [['message', 'assistant'], ['message', 'assistant']]);
    const log = nemoRlMessageLog(row.response.output);
    const lastGeneration = row.messages.findLastIndex((message) => message.role === 'assistant');
    const sequence = row.messages.slice(0, lastGeneration + 1).flatMap((message) => message.token_ids);
    assert.deepEqual(log.flatMap((message) => message.token_ids), sequence);
    const assistants = row.messages.filter((message) => message.role === 'assistant');
    assert.deepEqual(log.filter((message) => message.role === 'assistant').map((message) => message.generation_logprobs), assistants.map((message) => message.generation_logprobs));
  });

  it('keeps the token ids on the messages too', async () => {
    const row = await twoTurnRow();
    assert.ok(row.messages.every((message) => Array.isArray(message.token_ids) && message.token_ids.length > 0));
  });
});

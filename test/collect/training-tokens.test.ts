import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { collect } from '../../src/collect/collect-run.js';
import { readFullRow, SamplingParams } from '../../src/core/index.js';
import { RemotePolicy, vllmCompletionsBackend } from '../../src/policy/index.js';
import { TemplateRenderer } from '../../src/tokens/index.js';
import { qwen3Template, qwen3Tokenizer, startQwen3Server } from '../support/qwen3.js';

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

const tokenizer = await qwen3Tokenizer();
// The server spells its replies as a real sampler may, not as encode(text): ids re-derived from text would differ.
const { server, url } = await startQwen3Server({
  tokenization: 'non-canonical',
  respond: ({ text }) => (text.includes('<result>') ? '3' : 'I will use <calc>1+2</calc>'),
});
const policy = new RemotePolicy({ backend: vllmCompletionsBackend, urls: [url], tokenizer, model: 'm', maxModelLen: 4096 });
after(() => policy.close());

interface Sampled {
  prompt: number[];
  ids: number[];
  logprobs: number[];
}

/** One arithmetic task answered with a tool call, then the answer: two model calls with an observation between them, and what the model server was sent and sampled. */
async function twoTurnRow(): Promise<{ row: Row; line: string; calls: Sampled[] }> {
  server.requests.length = 0;
  const dir = mkdtempSync(join(tmpdir(), 'gymnast-training-tokens-'));
  const input = join(dir, 'in.jsonl');
  writeFileSync(
    input,
    `${JSON.stringify({ responses_create_params: { input: [{ role: 'user', content: 'what is 1+2?' }] }, agent_ref: { name: 'arithmetic' }, problem: '1+2', answer: 3 })}\n`,
  );
  const output = join(dir, 'rollouts.jsonl');
  await collect({
    input,
    output,
    concurrency: 1,
    policy,
    renderer: new TemplateRenderer(tokenizer, await qwen3Template()),
    maxSeqLen: 512,
    maxTurns: 4,
    sampling: SamplingParams.parse({ max_tokens: 32, seed: 1 }),
  });
  const calls = server.requests
    .filter((request) => request.path === '/v1/completions')
    .map((request) => {
      const choice = (request.response!.body as { choices: { token_ids: number[]; logprobs: { token_logprobs: number[] } }[] }).choices[0]!;
      return { prompt: (request.body as { prompt: number[] }).prompt, ids: choice.token_ids, logprobs: choice.logprobs.token_logprobs };
    });
  const line = readFileSync(output, 'utf8').trim();
  // As gymnast's readers read it: the messages' ids the file keeps on response.output put back.
  const read = readFullRow(JSON.parse(line), 'rollouts.jsonl:1');
  return { row: read.row as unknown as Row, line, calls };
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
    const { row } = await twoTurnRow();
    const trained = row.response.output.filter((item) => item.generation_token_ids !== undefined);
    assert.deepEqual(
      trained.map((item) => [item.type, item.role]),
      [
        ['message', 'assistant'],
        ['message', 'assistant'],
      ],
    );
    const log = nemoRlMessageLog(row.response.output);
    const lastGeneration = row.messages.findLastIndex((message) => message.role === 'assistant');
    const sequence = row.messages.slice(0, lastGeneration + 1).flatMap((message) => message.token_ids);
    assert.deepEqual(
      log.flatMap((message) => message.token_ids),
      sequence,
    );
    const assistants = row.messages.filter((message) => message.role === 'assistant');
    assert.deepEqual(
      log.filter((message) => message.role === 'assistant').map((message) => message.generation_logprobs),
      assistants.map((message) => message.generation_logprobs),
    );
  });

  it('are exactly what the model server was sent and sampled, though its ids are not encode(text)', async () => {
    const { row, calls } = await twoTurnRow();
    const trained = row.response.output.filter((item) => item.generation_token_ids !== undefined);
    assert.deepEqual(
      trained.map((item) => ({ prompt: item.prompt_token_ids, ids: item.generation_token_ids, logprobs: item.generation_log_probs })),
      calls,
    );
    assert.notDeepEqual(calls[0]!.ids, tokenizer.encode(tokenizer.decode(calls[0]!.ids)), 'the server spelled the reply non-canonically');
  });

  it('are the only copy of the ids in the file, and give every message its ids back when read', async () => {
    const { row, line } = await twoTurnRow();
    assert.ok(row.messages.every((message) => Array.isArray(message.token_ids) && message.token_ids.length > 0));
    const stored = JSON.parse(line) as { messages: { role: string; token_ids?: number[]; token_count?: number }[] };
    const lastGeneration = stored.messages.findLastIndex((message) => message.role === 'assistant');
    assert.deepEqual(
      stored.messages.map((message) => (message.token_ids === undefined ? message.token_count : 'ids')),
      row.messages.map((message, i) => (i <= lastGeneration ? message.token_ids.length : 'ids')),
      'up to the last model call, a message stores its count of ids, not the ids',
    );
    assert.equal(line.includes('"generation_logprobs"'), false, 'the logprobs are stored once, on response.output');
    for (const message of row.messages.filter((message) => message.role === 'assistant')) {
      assert.equal(line.split(JSON.stringify(message.generation_logprobs)).length - 1, 1, "each call's logprobs once");
      assert.equal(line.split(`"generation_token_ids":${JSON.stringify(message.token_ids)}`).length - 1, 1, "each call's generated ids once");
    }
  });
});

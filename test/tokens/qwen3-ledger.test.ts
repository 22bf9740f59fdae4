import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { EpisodeTask, SamplingParams, flatTokenIds, type EpisodeRecord, type Message } from '../../src/core/index.js';
import { runEpisode } from '../../src/engine/index.js';
import { RemotePolicy, vllmCompletionsBackend } from '../../src/policy/index.js';
import { ScriptedEnvironment } from '../../src/testing/index.js';
import { TemplateRenderer, TokenLedger, type DriftMode } from '../../src/tokens/index.js';
import { qwen3Template, qwen3Tokenizer, startQwen3Server } from '../support/qwen3.js';

const IM_END = 151645;
const tokenizer = await qwen3Tokenizer();

/** What the model says on each turn of the episode running now. */
let replies: string[] = [];
// The server spells its replies as a real sampler may, not as encode(text): the ledger must keep its ids.
const { server, url } = await startQwen3Server({
  tokenization: 'non-canonical',
  respond: ({ text }) => replies[text.split('<|im_start|>assistant').length - 2]!,
});
const policy = new RemotePolicy({ backend: vllmCompletionsBackend, urls: [url], tokenizer, model: 'm', maxModelLen: 4096 });
after(() => policy.close());

interface Completion {
  prompt: number[];
}
interface Sampled {
  choices: { token_ids: number[]; logprobs: { token_logprobs: number[] } }[];
}

/** A two-turn episode on the real Qwen3 template: the model answers, the environment replies as `role`, the model answers again; with the prompts sent and the answers sampled. */
async function episode(
  said: string[],
  observationRole: Message['role'],
  drift: DriftMode,
): Promise<{ record: EpisodeRecord; prompts: number[][]; sampled: Sampled[] }> {
  replies = said;
  server.requests.length = 0;
  const renderer = new TemplateRenderer(tokenizer, await qwen3Template(), { drift });
  const environment = new ScriptedEnvironment({
    step: (_turn, index) => ({ observation: [{ role: observationRole, content: 'Try again.' }], reward: index, terminated: index === 1 }),
  });
  const task = EpisodeTask.parse({ id: 'q', index: 0, messages: [{ role: 'user', content: 'What is 2+2?' }] });
  const options = { policy, environment, renderer, maxTurns: 4, maxSeqLen: 4096, sampling: SamplingParams.parse({ seed: 5 }) };
  const record = await runEpisode(task, 0, options);
  const calls = server.requests.filter((request) => request.path === '/v1/completions');
  return { record, prompts: calls.map((call) => (call.body as Completion).prompt), sampled: calls.map((call) => call.response!.body as Sampled) };
}

describe('the token ledger on the real Qwen3 template', () => {
  it('keeps the ids as sampled, <|im_end|> in the ids but not the text, bridges the newline the model never sampled, and is each prompt sent', async () => {
    const { record, prompts, sampled } = await episode(['It is 5.', 'It is 4.'], 'user', 'strict');
    const first = record.messages[1]!;
    assert.equal(first.content, 'It is 5.');
    assert.deepEqual(first.token_ids, sampled[0]!.choices[0]!.token_ids);
    assert.notDeepEqual(first.token_ids, tokenizer.encode(tokenizer.decode(first.token_ids!)), 'the server spelled the reply non-canonically');
    assert.equal(first.token_ids!.at(-1), IM_END);
    const observation = record.messages[2]!;
    assert.equal(tokenizer.decode(observation.token_ids!), '\n<|im_start|>user\nTry again.<|im_end|>\n<|im_start|>assistant\n');
    assert.deepEqual(prompts, [flatTokenIds({ messages: record.messages.slice(0, 1) }), flatTokenIds({ messages: record.messages.slice(0, 3) })]);
  });

  it("marks for training exactly the sampled ids, with the sampler's logprobs on them", async () => {
    const { record, prompts, sampled } = await episode(['It is 5.', 'It is 4.'], 'user', 'strict');
    const ledger = TokenLedger.fromMessages(tokenizer, record.messages);
    const mask = ledger.lossMask();
    const trained = <T>(values: readonly T[]) => values.filter((_, i) => mask[i] === 1);
    assert.deepEqual(
      trained(ledger.tokenIds()),
      sampled.flatMap((answer) => answer.choices[0]!.token_ids),
    );
    assert.deepEqual(
      trained(ledger.logprobs()),
      sampled.flatMap((answer) => answer.choices[0]!.logprobs.token_logprobs),
    );
    assert.ok(ledger.logprobs().every((logprob, i) => mask[i] === 1 || logprob === 0));
    const last = sampled.at(-1)!.choices[0]!.token_ids;
    assert.deepEqual(ledger.tokenIds().slice(0, prompts.at(-1)!.length + last.length), [...prompts.at(-1)!, ...last]);
  });

  it('without reasoning, the sequence decodes to exactly what the template renders for the whole conversation, in the ids sampled', async () => {
    const { record } = await episode(['It is 5.', 'It is 4.'], 'user', 'strict');
    assert.equal(record.record_type, 'rollout');
    assert.equal(record.token_drift_count, 0);
    const template = await qwen3Template();
    const rendered = template.render(record.messages, { addGenerationPrompt: false });
    assert.equal(tokenizer.decode(flatTokenIds(record)), rendered);
    assert.notDeepEqual(flatTokenIds(record), tokenizer.encode(rendered));
  });

  it('counts every turn the template would render differently once it strips earlier <think> blocks, keeping the sampled tokens (warn)', async () => {
    const { record } = await episode(['<think>\nadd\n</think>\n\n5', '4'], 'user', 'warn');
    assert.equal(record.record_type, 'rollout');
    assert.equal(record.token_drift_count, 2);
    assert.deepEqual(
      record.turns.map((turn) => turn.token_drift?.ledger.slice(0, 7)),
      ['<think>', '<think>'],
    );
    assert.match(tokenizer.decode(flatTokenIds(record)), /<think>\nadd\n<\/think>\n\n5<\|im_end\|>\n<\|im_start\|>user/);
  });

  it('fails the episode as token-alignment when the drift mode is strict', async () => {
    const { record } = await episode(['<think>\nadd\n</think>\n\n5', '4'], 'user', 'strict');
    assert.equal(record.record_type === 'failure' && record.failure_class, 'token-alignment');
  });

  it('tool responses do not end the turn, so reasoning before a tool call stays and nothing drifts', async () => {
    const { record } = await episode(
      ['<think>\nuse the tool\n</think>\n\n<tool_call>\n{"name": "add", "arguments": {"a": 2, "b": 2}}\n</tool_call>', '4'],
      'tool',
      'strict',
    );
    assert.equal(record.record_type, 'rollout');
    assert.equal(record.token_drift_count, 0);
    assert.equal(
      tokenizer.decode(record.messages[2]!.token_ids!),
      '\n<|im_start|>user\n<tool_response>\nTry again.\n</tool_response><|im_end|>\n<|im_start|>assistant\n',
    );
  });
});

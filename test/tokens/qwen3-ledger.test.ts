import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EpisodeTask, SamplingParams, flatTokenIds, type EpisodeRecord, type Message } from '../../src/core/index.js';
import { runEpisode } from '../../src/engine/index.js';
import { ScriptedEnvironment, ScriptedPolicy } from '../../src/testing/index.js';
import { TemplateRenderer, type DriftMode, type HfTokenizer } from '../../src/tokens/index.js';
import { qwen3Template, qwen3Tokenizer } from '../support/qwen3.js';

const IM_END = 151645;

/** A two-turn episode on the real Qwen3 template: the model answers, the environment replies as `role`, the model answers again. */
async function episode(replies: string[], observationRole: Message['role'], drift: DriftMode): Promise<{ record: EpisodeRecord; tokenizer: HfTokenizer; policy: ScriptedPolicy }> {
  const tokenizer = await qwen3Tokenizer();
  const renderer = new TemplateRenderer(tokenizer, await qwen3Template(), { drift });
  // The model stops on <|im_end|>: it is sampled, so it is in the ids (and not in the text).
  const policy = new ScriptedPolicy({ tokenizer, script: (_request, turn) => ({ token_ids: [...tokenizer.encode(replies[turn]!), IM_END] }) });
  const environment = new ScriptedEnvironment({
    step: (_turn, index) => ({ observation: [{ role: observationRole, content: 'Try again.' }], reward: index, terminated: index === 1 }),
  });
  const task = EpisodeTask.parse({ id: 'q', index: 0, messages: [{ role: 'user', content: 'What is 2+2?' }] });
  const options = { policy, environment, renderer, maxTurns: 4, maxSeqLen: 4096, sampling: SamplingParams.parse({}) };
  return { record: await runEpisode(task, 0, options), tokenizer, policy };
}

describe('the token ledger on the real Qwen3 template', () => {
  it('keeps sampled <|im_end|> in the ids but not the text, and bridges the newline the model never sampled', async () => {
    const { record, tokenizer, policy } = await episode(['5', '4'], 'user', 'strict');
    const first = record.messages[1]!;
    assert.equal(first.content, '5');
    assert.equal(first.token_ids!.at(-1), IM_END);
    const observation = record.messages[2]!;
    assert.equal(tokenizer.decode(observation.token_ids!), '\n<|im_start|>user\nTry again.<|im_end|>\n<|im_start|>assistant\n');
    assert.deepEqual(policy.requests[1]!.prompt_token_ids, flatTokenIds({ messages: record.messages.slice(0, 3) }));
  });

  it('without reasoning, the sequence is exactly what the template renders for the whole conversation', async () => {
    const { record, tokenizer } = await episode(['5', '4'], 'user', 'strict');
    assert.equal(record.record_type, 'rollout');
    assert.equal(record.token_drift_count, 0);
    const template = await qwen3Template();
    const rendered = template.render(record.messages, { addGenerationPrompt: false });
    assert.equal(tokenizer.decode(flatTokenIds(record)), rendered);
  });

  it('counts every turn the template would render differently once it strips earlier <think> blocks, keeping the sampled tokens (warn)', async () => {
    const { record, tokenizer } = await episode(['<think>\nadd\n</think>\n\n5', '4'], 'user', 'warn');
    assert.equal(record.record_type, 'rollout');
    assert.equal(record.token_drift_count, 2);
    assert.deepEqual(record.turns.map((turn) => turn.token_drift?.ledger.slice(0, 7)), ['<think>', '<think>']);
    assert.match(tokenizer.decode(flatTokenIds(record)), /<think>\nadd\n<\/think>\n\n5<\|im_end\|>\n<\|im_start\|>user/);
  });

  it('fails the episode as token-alignment when the drift mode is strict', async () => {
    const { record } = await episode(['<think>\nadd\n</think>\n\n5', '4'], 'user', 'strict');
    assert.equal(record.record_type === 'failure' && record.failure_class, 'token-alignment');
  });

  it('tool responses do not end the turn, so reasoning before a tool call stays and nothing drifts', async () => {
    const { record, tokenizer } = await episode(['<think>\nuse the tool\n</think>\n\n<tool_call>\n{"name": "add", "arguments": {"a": 2, "b": 2}}\n</tool_call>', '4'], 'tool', 'strict');
    assert.equal(record.record_type, 'rollout');
    assert.equal(record.token_drift_count, 0);
    assert.equal(tokenizer.decode(record.messages[2]!.token_ids!), '\n<|im_start|>user\n<tool_response>\nTry again.\n</tool_response><|im_end|>\n<|im_start|>assistant\n');
  });
});

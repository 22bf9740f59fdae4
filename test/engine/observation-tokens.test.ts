import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EpisodeTask, SamplingParams, type RolloutRecord } from '../../src/core/index.js';
import { runEpisode, type EpisodeOptions } from '../../src/engine/index.js';
import { builtinEnvironments, type ObservationTokens } from '../../src/environments/index.js';
import { ScriptedEnvironment, ScriptedPolicy } from '../../src/testing/index.js';
import { TemplateRenderer } from '../../src/tokens/index.js';
import { qwen3Template, qwen3Tokenizer } from '../support/qwen3.js';

const tokenizer = await qwen3Tokenizer();
const renderer = new TemplateRenderer(tokenizer, await qwen3Template({ kwargs: { enable_thinking: false } }));

/** What an environment written for NeMo RL returns: the chat template's tokens are in its content. */
const NEMO_RL_OBSERVATION = '<|im_start|>user\nabc<|im_end|>\n<|im_start|>assistant\n';

/** Two turns on Qwen3's tokenizer and template: the model answers, the environment says `content`, the model answers again. */
async function twoTurns(content: string, observationTokens?: ObservationTokens): Promise<{ record: RolloutRecord; policy: ScriptedPolicy }> {
  const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'hello<|im_end|>' }] });
  const environment = new ScriptedEnvironment({
    ...(observationTokens ? { observationTokens } : {}),
    step: (_turn, index) => ({ observation: [{ role: 'environment', content }], reward: 0, terminated: index === 1 }),
  });
  const options: EpisodeOptions = {
    policy,
    environment,
    renderer,
    maxTurns: 2,
    maxSeqLen: 4096,
    sampling: SamplingParams.parse({ max_tokens: 16, seed: 1 }),
    clock: { now: () => 0 },
  };
  const task = EpisodeTask.parse({ id: 't', index: 0, messages: [{ role: 'user', content: 'Say hello.' }] });
  return { record: (await runEpisode(task, 0, options)) as RolloutRecord, policy };
}

const observations = (record: RolloutRecord) => record.messages.filter((message) => message.role === 'environment');

describe('observation tokens: raw | template, chosen by the environment', () => {
  // NeMo RL's rollouts.py (seeds 000, 001), run_multi_turn_rollout and run_sample_multi_turn_rollout:
  // `tokenizer(env_obs_content, return_tensors="pt", add_special_tokens=False)`, no chat template.
  it("raw: each observation's content is encoded as it is, as NeMo RL's run_multi_turn_rollout tokenizes it", async () => {
    const { record, policy } = await twoTurns('abc', 'raw');
    const [first] = observations(record);
    assert.deepEqual(first!.token_ids, tokenizer.encode('abc'));
    assert.equal(record.turns[0]!.env_tokens, tokenizer.encode('abc').length);
    const [opening, second] = policy.requests;
    const sampled = record.messages.find((message) => message.role === 'assistant')!.token_ids!;
    assert.deepEqual(
      second!.prompt_token_ids,
      [...opening!.prompt_token_ids, ...sampled, ...tokenizer.encode('abc')],
      'nothing added around it, no generation prompt',
    );
  });

  it('template (the default): the observation is rendered by the chat template, as a chat model expects it', async () => {
    const { record } = await twoTurns('abc');
    const [first] = observations(record);
    assert.equal(tokenizer.decode(first!.token_ids!), '\n<|im_start|>user\nabc<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n');
    assert.ok(record.turns[0]!.env_tokens > tokenizer.encode('abc').length);
  });

  it('an environment written for NeMo RL is templated once with raw, and twice with the template', async () => {
    const count = (text: string) => text.split('<|im_start|>user').length - 1;
    const raw = (await twoTurns(NEMO_RL_OBSERVATION, 'raw')).record;
    assert.equal(tokenizer.decode(observations(raw)[0]!.token_ids!), NEMO_RL_OBSERVATION);
    assert.equal(count(tokenizer.decode(raw.messages.flatMap((message) => message.token_ids ?? []))), 1 + 2, 'the prompt, then one per observation');
    const templated = (await twoTurns(NEMO_RL_OBSERVATION)).record;
    assert.equal(count(tokenizer.decode(observations(templated)[0]!.token_ids!)), 2, 'the template opens a user turn around the one in the content');
  });

  it('the built-in environments keep the chat template', () => {
    for (const entry of builtinEnvironments) assert.notEqual(entry.create().observationTokens, 'raw', entry.name);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EpisodeTask, SamplingParams } from '../../src/core/index.js';
import { type EpisodeGroup, runGroups } from '../../src/engine/index.js';
import { arithmeticEnvironment, arithmeticPrompt, smallProductTasks } from '../../src/environments/index.js';
import { EmbeddedPolicy } from '../../src/policy/index.js';
import { JinjaChatTemplate, TemplateRenderer, type HfTokenizer } from '../../src/tokens/index.js';
import { groupAdvantages } from '../../src/train/group-advantages.js';
import { GrpoTrainer } from '../../src/train/grpo-trainer.js';
import { clippedToken } from '../../src/train/ppo-clip.js';
import { recomputeLogprobs } from '../../src/train/recompute-logprobs.js';
import { rolloutSequence } from '../../src/train/rollout-sequence.js';

// Its own policy: the trainer hands it new weights, which the other spec files' shared one must not see.
const policy = await EmbeddedPolicy.load();
const tokenizer = policy.tokenizer as HfTokenizer;
const template = JinjaChatTemplate.fromConfig(tokenizer.config);
const renderer = new TemplateRenderer(tokenizer, template, { drift: 'strict' });
const tasks = smallProductTasks('train')
  .filter((_, i) => i % 100 === 0)
  .map((task, index) => EpisodeTask.parse({ id: task.problem, index, messages: arithmeticPrompt(task), data: task }));

/** Fresh on-policy groups of four from the policy as it now is. */
async function collectGroups(seed: number): Promise<EpisodeGroup[]> {
  const options = {
    policy,
    environment: arithmeticEnvironment(),
    renderer,
    maxTurns: 4,
    maxSeqLen: policy.maxModelLen,
    sampling: SamplingParams.parse({ temperature: 1, max_tokens: 96, seed }),
  };
  const groups: EpisodeGroup[] = [];
  for await (const group of runGroups(tasks, options, { groupSize: 4 })) groups.push(group);
  return groups;
}

/** GRPO's surrogate at ratio 1: Σ advantage · logprob over every generated token, under `model`. What a step should raise. */
function surrogate(model: GptModel, groups: readonly EpisodeGroup[]): number {
  let sum = 0;
  for (const group of groups) {
    const advantages = groupAdvantages(group.records.map((record) => record.reward));
    group.records.forEach((record, i) => {
      if (advantages[i] === 0) return;
      const sequence = rolloutSequence(record)!;
      const { logprobs } = recomputeLogprobs(model, sequence);
      sequence.mask.forEach((m, t) => {
        sum += m * advantages[i]! * logprobs[t]!;
      });
    });
  }
  return sum;
}

type GptModel = EmbeddedPolicy['model'];

describe('a GRPO step on the embedded model', () => {
  it('normalizes advantages within a group, and gives a group with one reward nothing to learn', () => {
    assert.deepEqual(groupAdvantages([1, 1, 1, 1]), [0, 0, 0, 0]);
    const advantages = groupAdvantages([1, 0, 0, 0]);
    assert.ok(Math.abs(advantages.reduce((sum, a) => sum + a, 0)) < 1e-9);
    assert.ok(Math.abs(advantages[0]! - Math.sqrt(3)) < 1e-5 && Math.abs(advantages[1]! + 1 / Math.sqrt(3)) < 1e-5);
  });

  it('clips the ratio only in the direction the advantage pushes', () => {
    assert.deepEqual(clippedToken(1.5, 1, 0.2), { loss: -1.2, derivative: 0, clipped: true });
    assert.equal(clippedToken(0.5, 1, 0.2).clipped, false);
    assert.equal(clippedToken(0.5, -1, 0.2).clipped, true);
    assert.equal(clippedToken(1.5, -1, 0.2).derivative, 1.5);
  });

  it('on fresh rollouts: ratios 1 within 1e-5, no KL yet, and rewarded rollouts made likelier than unrewarded ones', async () => {
    const groups = await collectGroups(21);
    const trainer = new GrpoTrainer(policy.model, { learningRate: 1e-4 });
    const before = surrogate(trainer.model, groups);
    const metrics = trainer.step(groups);
    assert.ok(metrics.groups_with_signal >= 2, `${metrics.groups_with_signal} groups with rewards that differ`);
    assert.ok(metrics.first_ratio_error < 1e-5, `max |ratio − 1| = ${metrics.first_ratio_error}`);
    assert.equal(metrics.kl, 0);
    assert.equal(metrics.clip_fraction, 0);
    assert.ok(metrics.pass_at_k >= metrics.pass_at_1 && metrics.entropy > 0 && metrics.tokens > 0 && metrics.tokens_per_second > 0);
    const after = surrogate(trainer.model, groups);
    assert.ok(after > before, `Σ advantage · logprob: ${before} → ${after}`);
  });

  it('hands the sampler its new weights: the next rollouts are on-policy again (ratios 1), and KL to the start is measured', async () => {
    const trainer = new GrpoTrainer(policy.model, { learningRate: 1e-3, klCoefficient: 0.1 });
    trainer.step(await collectGroups(31));
    policy.updateWeights(trainer.model.params);
    const metrics = trainer.step(await collectGroups(32));
    assert.ok(metrics.first_ratio_error < 1e-5, `max |ratio − 1| = ${metrics.first_ratio_error}`);
    assert.ok(metrics.kl > 0, `KL ${metrics.kl}`);
  });

  it('refuses new weights while a generation is decoding: one sequence would mix two policies', async () => {
    const prompt = tokenizer.encode(template.render(arithmeticPrompt({ problem: '13*8' }), { addGenerationPrompt: true }));
    const request = {
      session_id: 's',
      prompt_token_ids: prompt,
      messages: [],
      stop_strings: [],
      stop_token_ids: [],
      sampling: SamplingParams.parse({ max_tokens: 8, seed: 1 }),
    };
    const generation = policy.generate(request, new AbortController().signal);
    assert.throws(() => policy.updateWeights(policy.model.params.slice()), /while 1 generations are decoding/);
    await generation;
    policy.updateWeights(policy.model.params.slice());
  });
});

import { z } from 'zod';
import type { EpisodeRecord } from '../core/rollout-record.js';
import { unbiasedPassAtK } from '../metrics/pass-at-k.js';
import { GptModel } from '../policy/embedded/gpt-model.js';
import { AdamW } from '../policy/embedded/training/adamw.js';
import { accumulateSequenceGradients } from '../policy/embedded/training/sequence-gradients.js';
import { groupAdvantages } from './group-advantages.js';
import { clippedToken } from './ppo-clip.js';
import { recomputeLogprobs } from './recompute-logprobs.js';
import { type RolloutSequence, rolloutSequence } from './rollout-sequence.js';

/** How a GRPO step learns. Defaults suit the embedded model on the small-products tasks. */
export const GrpoSettings = z.object({
  learningRate: z.number().positive().default(3e-4),
  /** PPO's ε: the importance ratio is clipped to [1−ε, 1+ε] in the direction the advantage pushes. */
  clipEpsilon: z.number().positive().default(0.2),
  /** β of the KL penalty to the starting weights (k3 estimator); 0 leaves it out of the loss (it is still measured). */
  klCoefficient: z.number().nonnegative().default(0),
  /** Optimizer steps per batch of groups, each on its share of the groups; after the first, ratios move off 1 and the clip matters. */
  minibatches: z.number().int().positive().default(1),
  /** Gradients are scaled down to this global norm. */
  maxGradNorm: z.number().positive().default(1),
  weightDecay: z.number().nonnegative().default(0),
});
export type GrpoSettings = z.infer<typeof GrpoSettings>;
export type GrpoSettingsInput = z.input<typeof GrpoSettings>;

/** The rollouts of one task, as `runGroups` yields them: what a step learns from. */
export interface RolloutGroup {
  records: readonly EpisodeRecord[];
  /**
   * `recomputeLogprobs` of each record under the trainer's starting weights, when another process
   * (`gymnast train --async`'s sampler) computed them: the step then skips that forward pass.
   */
  referenceLogprobs?: readonly (Float64Array | undefined)[];
}

/**
 * What one step saw and did. Token means are over the generated tokens the step trained on: those of
 * rollouts with a nonzero advantage (all rollouts when the KL penalty is in the loss).
 */
export interface GrpoStepMetrics {
  step: number;
  groups: number;
  rollouts: number;
  /** Mean reward of the step's rollouts. */
  reward: number;
  /** Share of rollouts with a positive reward. */
  pass_at_1: number;
  /** pass@k with k the group size: the share of tasks with at least one rewarded rollout. */
  pass_at_k: number;
  /** Groups whose rewards differ: the only ones with a policy gradient. */
  groups_with_signal: number;
  /** KL(π‖π_start) per token (k3 estimator), measured before the update. */
  kl: number;
  /** Share of generated tokens whose gradient the clip removed. */
  clip_fraction: number;
  /** Mean entropy (nats) of the policy's next-token distribution at generated tokens. */
  entropy: number;
  /** Largest |ratio − 1| in the first minibatch: 0 up to rounding when the rollouts are on-policy. */
  first_ratio_error: number;
  loss: number;
  grad_norm: number;
  tokens: number;
  tokens_per_second: number;
  seconds: number;
}

interface Sample {
  sequence: RolloutSequence;
  advantage: number;
  reference: Float64Array | undefined;
}

/** Sums over a step's generated tokens, and the largest first-minibatch ratio error. */
interface Totals {
  tokens: number;
  kl: number;
  clipped: number;
  entropy: number;
  loss: number;
  gradNorm: number;
  firstRatioError: number;
}

/**
 * GRPO on the embedded model's weights, in this process: group-normalized advantages over each
 * task's rollouts, PPO's clipped objective with importance ratios against the logprobs the sampler
 * recorded, the loss on generated tokens only (each rollout's loss mask), an optional KL penalty to
 * the starting weights, AdamW. The trainer keeps its own copy of the weights: a sampler gets them
 * after a step (`EmbeddedPolicy.updateWeights(trainer.model.params)`), as a trainer hands weights
 * to inference servers.
 */
export class GrpoTrainer {
  readonly model: GptModel;
  readonly reference: GptModel;
  readonly settings: GrpoSettings;
  readonly #optimizer: AdamW;
  readonly #grads: Float32Array;
  #steps = 0;

  constructor(start: GptModel, settings: GrpoSettingsInput = {}) {
    this.model = new GptModel(start.config, start.params.slice());
    this.reference = new GptModel(start.config, start.params.slice());
    this.settings = GrpoSettings.parse(settings);
    this.#optimizer = new AdamW(this.model.params.length);
    this.#grads = new Float32Array(this.model.params.length);
  }

  get steps(): number {
    return this.#steps;
  }

  /** One step over the groups: every minibatch's gradient, clipped, then AdamW. */
  step(groups: readonly RolloutGroup[]): GrpoStepMetrics {
    const started = performance.now();
    // A rollout with no advantage adds nothing to the loss unless the KL penalty is in it: it is not even read.
    const samples = groups.flatMap(groupSamples).filter((sample) => sample.advantage !== 0 || this.settings.klCoefficient > 0);
    const totals: Totals = { tokens: 0, kl: 0, clipped: 0, entropy: 0, loss: 0, gradNorm: 0, firstRatioError: 0 };
    const { minibatches } = this.settings;
    for (let m = 0; m < minibatches; m++) {
      const batch = samples.filter((_, i) => i % minibatches === m);
      if (batch.length === 0) continue;
      const tokens = batch.reduce((sum, sample) => sum + sample.sequence.generated, 0);
      this.#grads.fill(0);
      for (const sample of batch) this.#accumulate(sample, tokens, m === 0, totals);
      totals.gradNorm = Math.max(totals.gradNorm, this.#clipGradients());
      this.#optimizer.update(this.model.params, this.#grads, {
        learningRate: this.settings.learningRate,
        beta1: 0.9,
        beta2: 0.95,
        epsilon: 1e-8,
        weightDecay: this.settings.weightDecay,
      });
    }
    this.#steps += 1;
    const seconds = (performance.now() - started) / 1000;
    return {
      step: this.#steps,
      ...rewardMetrics(groups),
      ...tokenMetrics(totals),
      grad_norm: totals.gradNorm,
      tokens_per_second: totals.tokens / seconds,
      seconds,
    };
  }

  /** Adds one rollout's gradient to the minibatch's, each token weighted 1/`tokens` (a token mean over the minibatch). */
  #accumulate(
    sample: Sample,
    tokens: number,
    first: boolean,
    totals: { tokens: number; kl: number; clipped: number; entropy: number; loss: number; firstRatioError: number },
  ): void {
    const { sequence, advantage } = sample;
    const { clipEpsilon, klCoefficient } = this.settings;
    const reference = sample.reference ?? recomputeLogprobs(this.reference, sequence).logprobs;
    accumulateSequenceGradients(this.model, this.#grads, {
      tokens: sequence.tokens,
      weights: sequence.mask,
      weigh: (t, logprob, entropy) => {
        const ratio = Math.exp(logprob - sequence.recorded[t]!);
        if (first) totals.firstRatioError = Math.max(totals.firstRatioError, Math.abs(ratio - 1));
        const token = clippedToken(ratio, advantage, clipEpsilon);
        // k3: exp(ref − lp) − (ref − lp) − 1 ≥ 0, whose derivative in lp is 1 − exp(ref − lp).
        const gap = reference[t]! - logprob;
        const kl = Math.exp(gap) - gap - 1;
        totals.tokens += 1;
        totals.kl += kl;
        totals.entropy += entropy;
        totals.clipped += token.clipped ? 1 : 0;
        totals.loss += (token.loss + klCoefficient * kl) / tokens;
        const derivative = token.derivative + klCoefficient * (1 - Math.exp(gap));
        // The training code's loss is Σ weight · (−logprob): a weight of −d(loss)/d(logprob) gives this loss's gradient.
        return -derivative / tokens;
      },
    });
  }

  /** Scales the gradient down to `maxGradNorm` and returns its norm before. */
  #clipGradients(): number {
    let sum = 0;
    for (const g of this.#grads) sum += g * g;
    const norm = Math.sqrt(sum);
    if (norm > this.settings.maxGradNorm) {
      const scale = this.settings.maxGradNorm / norm;
      for (let i = 0; i < this.#grads.length; i++) this.#grads[i] = this.#grads[i]! * scale;
    }
    return norm;
  }
}

/** A group's rollouts that have tokens to train on, with their advantages (failures have no real reward and are left out). */
function groupSamples(group: RolloutGroup): Sample[] {
  const rollouts = group.records.filter((record) => record.record_type === 'rollout');
  const advantages = groupAdvantages(rollouts.map((record) => record.reward));
  return rollouts.flatMap((record, i) => {
    const sequence = rolloutSequence(record);
    return sequence ? [{ sequence, advantage: advantages[i]!, reference: group.referenceLogprobs?.[group.records.indexOf(record)] }] : [];
  });
}

function rewardMetrics(
  groups: readonly RolloutGroup[],
): Pick<GrpoStepMetrics, 'groups' | 'rollouts' | 'reward' | 'pass_at_1' | 'pass_at_k' | 'groups_with_signal'> {
  const rewards = groups.map((group) => group.records.filter((record) => record.record_type === 'rollout').map((record) => record.reward));
  const all = rewards.flat();
  const k = Math.max(1, ...rewards.map((group) => group.length));
  const mean = (values: readonly number[]) => (values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length);
  return {
    groups: groups.length,
    rollouts: all.length,
    reward: mean(all),
    pass_at_1: mean(all.map((reward) => (reward > 0 ? 1 : 0))),
    pass_at_k: mean(rewards.map((group) => unbiasedPassAtK(group.length, group.filter((reward) => reward > 0).length, Math.min(k, group.length)))),
    groups_with_signal: rewards.filter((group) => new Set(group).size > 1).length,
  };
}

function tokenMetrics(totals: Totals): Pick<GrpoStepMetrics, 'kl' | 'clip_fraction' | 'entropy' | 'first_ratio_error' | 'loss' | 'tokens'> {
  const per = (value: number) => (totals.tokens === 0 ? 0 : value / totals.tokens);
  return {
    kl: per(totals.kl),
    clip_fraction: per(totals.clipped),
    entropy: per(totals.entropy),
    first_ratio_error: totals.firstRatioError,
    loss: totals.loss,
    tokens: totals.tokens,
  };
}

import type { GptModel } from '../policy/embedded/gpt-model.js';
import type { RolloutGroup } from './grpo-trainer.js';
import { recomputeLogprobs } from './recompute-logprobs.js';
import { rolloutSequence } from './rollout-sequence.js';

/**
 * Each record's logprobs under the starting weights (`RolloutGroup.referenceLogprobs`), computed where
 * the rollouts were sampled so the trainer skips that forward pass. Unless `everyRollout` (the KL is
 * in the loss), a group whose rewards are all equal gets none: the trainer reads no rollout without an
 * advantage, and computes any it lacks itself.
 */
export async function referenceLogprobs(reference: GptModel, group: RolloutGroup, everyRollout: boolean): Promise<(Float64Array | undefined)[]> {
  const rewards = new Set(group.records.flatMap((record) => (record.record_type === 'rollout' ? [record.reward] : [])));
  if (!everyRollout && rewards.size < 2) return group.records.map(() => undefined);
  const logprobs: (Float64Array | undefined)[] = [];
  for (const record of group.records) {
    const sequence = rolloutSequence(record);
    logprobs.push(sequence && recomputeLogprobs(reference, sequence).logprobs);
    // A forward pass takes tens of milliseconds: between two, the trainer's new weights can go in.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return logprobs;
}

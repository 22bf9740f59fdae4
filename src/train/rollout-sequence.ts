import type { EpisodeRecord } from '../core/rollout-record.js';

/**
 * A rollout as the trainer reads it: the whole token sequence the policy saw and produced, and for
 * each position `t` whether `tokens[t + 1]` was sampled (the loss mask) and the sampler's logprob of it.
 * Arrays indexed by `t` have `tokens.length - 1` entries, as `TrainingSequence.weights`.
 */
export interface RolloutSequence {
  tokens: number[];
  /** 1 where `tokens[t + 1]` is a generated token (NeMo RL's `token_loss_mask`, shifted to predict it), else 0. */
  mask: number[];
  /** The recorded `generation_logprobs` of `tokens[t + 1]` where `mask[t]` is 1, else 0. */
  recorded: number[];
  /** Generated tokens in the sequence. */
  generated: number;
}

/**
 * The sequence of a finished rollout, from its messages' exact token ids. Nothing to train on gives
 * `undefined`: a failure (its reward is not real), a rollout without the sampler's tokens, or one
 * whose tokens drifted from the chat template (the ids a trainer would re-render are not the ones
 * sampled; `gymnast export nemo-rl` masks them too).
 */
export function rolloutSequence(record: EpisodeRecord): RolloutSequence | undefined {
  if (record.record_type !== 'rollout' || !record.has_training_tokens || record.token_drift_count > 0) return undefined;
  const tokens: number[] = [];
  const logprobs: (number | undefined)[] = [];
  for (const message of record.messages) {
    const ids = message.token_ids ?? [];
    const sampled = message.role === 'assistant' ? message.generation_logprobs : undefined;
    ids.forEach((id, i) => {
      tokens.push(id);
      logprobs.push(sampled?.[i]);
    });
  }
  // The first token has no prefix to be predicted from: it is never generated.
  const mask = logprobs.slice(1).map((logprob): number => (logprob === undefined ? 0 : 1));
  const generated = mask.reduce((sum, m) => sum + m, 0);
  if (generated === 0) return undefined;
  return { tokens, mask, recorded: logprobs.slice(1).map((logprob) => logprob ?? 0), generated };
}

import type { GptModel } from '../policy/embedded/gpt-model.js';
import { accumulateSequenceGradients } from '../policy/embedded/training/sequence-gradients.js';
import type { RolloutSequence } from './rollout-sequence.js';

/** The model's logprob of each generated token and the entropy of the distribution it came from, indexed by `t` as the sequence's mask. */
export interface RecomputedLogprobs {
  logprobs: Float64Array;
  entropies: Float64Array;
}

/**
 * One full forward pass of the training code over the rollout's tokens, reading the raw log-softmax
 * of each generated token: the quantity the embedded sampler records (`logprobs_mode: "raw"`, before
 * temperature and filters), so under the weights that sampled it the two agree.
 */
export function recomputeLogprobs(model: GptModel, sequence: Pick<RolloutSequence, 'tokens' | 'mask'>): RecomputedLogprobs {
  const logprobs = new Float64Array(sequence.mask.length);
  const entropies = new Float64Array(sequence.mask.length);
  accumulateSequenceGradients(model, new Float32Array(0), {
    tokens: sequence.tokens,
    weights: sequence.mask,
    weigh: (t, logprob, entropy) => {
      logprobs[t] = logprob;
      entropies[t] = entropy;
      return 0;
    },
  });
  return { logprobs, entropies };
}

import type { SamplingParams } from '../../core/sampling-params.js';
import type { SeededRandom } from '../../util/seeded-random.js';
import { logSoftmax } from './gpt-math.js';

export interface SampledToken {
  token: number;
  /**
   * The model's own log-probability of the token: log-softmax of the raw logits, before temperature,
   * top-k and top-p (vLLM's default `raw_logprobs`). At temperature 1 with no filters it is also the
   * sampling distribution's.
   */
  logprob: number;
}

/** Picks the next token from one row of logits with the request's sampling params. */
export function sampleToken(logits: Float32Array, offset: number, vocabSize: number, sampling: SamplingParams, random: SeededRandom): SampledToken {
  const raw = new Float32Array(vocabSize);
  logSoftmax(raw, logits, offset, vocabSize);
  const token = sampling.greedy || sampling.temperature === 0 ? argmax(raw) : drawFiltered(raw, sampling, random);
  return { token, logprob: raw[token]! };
}

function argmax(values: Float32Array): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i]! > values[best]!) best = i;
  return best;
}

/** Temperature, then top-k, then top-p (nucleus), then one draw from what is left. */
function drawFiltered(raw: Float32Array, sampling: SamplingParams, random: SeededRandom): number {
  const order = Array.from(raw.keys()).sort((a, b) => raw[b]! - raw[a]!);
  const kept = sampling.top_k ? order.slice(0, sampling.top_k) : order;
  const weights = kept.map((token) => Math.exp((raw[token]! - raw[kept[0]!]!) / sampling.temperature));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  let cutoff = kept.length;
  if (sampling.top_p < 1) {
    let mass = 0;
    cutoff = kept.findIndex((_, i) => (mass += weights[i]! / total) >= sampling.top_p) + 1;
  }
  const nucleus = weights.slice(0, cutoff);
  let draw = random.next() * nucleus.reduce((sum, weight) => sum + weight, 0);
  for (let i = 0; i < nucleus.length; i++) {
    draw -= nucleus[i]!;
    if (draw <= 0) return kept[i]!;
  }
  return kept[nucleus.length - 1]!;
}

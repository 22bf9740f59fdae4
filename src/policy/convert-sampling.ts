import type { PolicyRequest } from './policy.js';

/**
 * The sampling fields of OpenAI-style requests (vLLM, SGLang, hosted APIs). Greedy becomes temperature 0
 * with no nucleus or top-k filter; `n` is always 1 so every sample has its own seed.
 */
export function convertSampling(request: PolicyRequest): Record<string, unknown> {
  const { sampling } = request;
  return {
    max_tokens: sampling.max_tokens,
    temperature: sampling.greedy ? 0 : sampling.temperature,
    top_p: sampling.greedy ? 1 : sampling.top_p,
    ...(sampling.top_k && !sampling.greedy ? { top_k: sampling.top_k } : {}),
    ...(sampling.seed === undefined ? {} : { seed: sampling.seed }),
    n: 1,
  };
}

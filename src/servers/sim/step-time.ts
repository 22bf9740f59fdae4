import type { SimProfile } from './sim-profile.js';

/**
 * Seconds one engine step takes: beta0 + beta1 · prefill tokens computed (those not found in the prefix
 * cache) + beta2 · decode tokens. The linear model BLIS and Vidur validate against real vLLM steps.
 */
export function stepSeconds(stepTime: SimProfile['stepTime'], prefillTokens: number, decodeTokens: number): number {
  return stepTime.beta0 + stepTime.beta1 * prefillTokens + stepTime.beta2 * decodeTokens;
}

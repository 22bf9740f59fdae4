import type { PolicyResult } from '../core/policy-result.js';

/**
 * How many tokens a generation produced: the sampler's ids when it returned them, else the count the
 * server reported in its usage (a text-only backend returns no ids, and its text re-tokenized locally
 * need not match what the model generated).
 */
export function generatedTokens(result: PolicyResult): number {
  return result.token_source === 'none' ? result.usage.completion_tokens : result.token_ids.length;
}

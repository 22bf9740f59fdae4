// Fast path: mirrors the PolicyResult schema; 23× faster (docs/fast-paths.md#hand-checks); guard: test/engine/policy-result-fast-path.test.ts.
import { FinishReason } from '../core/finish-reason.js';
import type { PolicyResult } from '../core/policy-result.js';
import { isRecord } from '../util/is-record.js';

const FINISH: ReadonlySet<string> = new Set(FinishReason.shape.unified.options);

/**
 * A policy result of the shape every backend returns, rebuilt as the PolicyResult schema returns it
 * (its fields in its order, its defaults applied, other fields dropped), or undefined for anything
 * else, which the schema reads. Once a turn, zod's generic walk of the id and logprob arrays cost more.
 */
export function plainPolicyResult(raw: unknown): PolicyResult | undefined {
  if (!isRecord(raw) || !isRecord(raw.finish_reason) || !isRecord(raw.usage)) return undefined;
  const {
    token_ids,
    logprobs,
    text,
    finish_reason,
    usage,
    token_source = 'sampler',
    logprobs_mode,
    prompt_token_ids,
    prompt_source = 'ledger',
    policy_version,
    server,
  } = raw;
  const { unified, raw: rawReason } = finish_reason;
  const { prompt_tokens, completion_tokens } = usage;
  const plain =
    isTokenIds(token_ids) &&
    Array.isArray(logprobs) &&
    logprobs.length === token_ids.length &&
    allFinite(logprobs) &&
    typeof text === 'string' &&
    typeof unified === 'string' &&
    FINISH.has(unified) &&
    (rawReason === undefined || typeof rawReason === 'string') &&
    isCount(prompt_tokens) &&
    isCount(completion_tokens) &&
    (token_source === 'sampler' || (token_source === 'none' && token_ids.length === 0)) &&
    (logprobs_mode === undefined || logprobs_mode === 'raw' || logprobs_mode === 'processed') &&
    (prompt_token_ids === undefined || isTokenIds(prompt_token_ids)) &&
    (prompt_source === 'ledger' || prompt_source === 'server') &&
    (policy_version === undefined || isCount(policy_version)) &&
    (server === undefined || typeof server === 'string');
  if (!plain) return undefined;
  return {
    token_ids,
    logprobs: logprobs as number[],
    text,
    finish_reason: { unified: unified as PolicyResult['finish_reason']['unified'], ...(rawReason === undefined ? {} : { raw: rawReason }) },
    usage: { prompt_tokens, completion_tokens },
    token_source,
    ...(logprobs_mode === undefined ? {} : { logprobs_mode }),
    ...(prompt_token_ids === undefined ? {} : { prompt_token_ids }),
    prompt_source,
    ...(policy_version === undefined ? {} : { policy_version: policy_version as number }),
    ...(server === undefined ? {} : { server }),
  };
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

// Indexed loops, not every(): a callback per element boxed each logprob (a double) on every turn.
function isTokenIds(value: unknown): value is number[] {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (!isCount(value[i])) return false;
  return true;
}

function allFinite(values: readonly unknown[]): boolean {
  for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i])) return false;
  return true;
}

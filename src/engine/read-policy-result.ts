import { FinishReason } from '../core/finish-reason.js';
import { PolicyResult } from '../core/policy-result.js';
import { isRecord } from '../util/is-record.js';

/**
 * What a policy returned, as the `PolicyResult` schema reads it, or zod's issues. The shape every
 * backend returns is confirmed by hand and rebuilt with the schema's fields in its order (its
 * defaults applied, other fields dropped, as the schema does); anything else goes through the schema,
 * which names what is wrong. Once a turn, zod's generic walk of the arrays cost more than this.
 */
export function readPolicyResult(raw: unknown): ReturnType<typeof PolicyResult.safeParse> {
  const read = plainResult(raw);
  return read ? { success: true, data: read } : PolicyResult.safeParse(raw);
}

const FINISH: ReadonlySet<string> = new Set(FinishReason.shape.unified.options);

function plainResult(raw: unknown): PolicyResult | undefined {
  if (!isRecord(raw) || !isRecord(raw.finish_reason) || !isRecord(raw.usage)) return undefined;
  const { token_ids, logprobs, text, finish_reason, usage, token_source = 'sampler', logprobs_mode, prompt_token_ids, prompt_source = 'ledger' } = raw;
  const { unified, raw: rawReason } = finish_reason;
  const { prompt_tokens, completion_tokens } = usage;
  const plain =
    isTokenIds(token_ids) &&
    Array.isArray(logprobs) &&
    logprobs.length === token_ids.length &&
    logprobs.every(Number.isFinite) &&
    typeof text === 'string' &&
    typeof unified === 'string' &&
    FINISH.has(unified) &&
    (rawReason === undefined || typeof rawReason === 'string') &&
    isCount(prompt_tokens) &&
    isCount(completion_tokens) &&
    (token_source === 'sampler' || (token_source === 'none' && token_ids.length === 0)) &&
    (logprobs_mode === undefined || logprobs_mode === 'raw' || logprobs_mode === 'processed') &&
    (prompt_token_ids === undefined || isTokenIds(prompt_token_ids)) &&
    (prompt_source === 'ledger' || prompt_source === 'server');
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
  };
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function isTokenIds(value: unknown): value is number[] {
  return Array.isArray(value) && value.every(isCount);
}

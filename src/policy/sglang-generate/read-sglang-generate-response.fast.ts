// Fast path: mirrors the SglangGenerateResponse schema; 70× faster (docs/fast-paths.md#hand-checks); guard: test/policy/wire-response-fast-path.test.ts.
import { isRecord } from '../../util/is-record.js';
import { isInt, isIntList, isNumber } from '../wire-checks.fast.js';
import type { SglangGenerateResponse } from './sglang-generate-wire-types.js';

type MetaInfo = SglangGenerateResponse['meta_info'];

/**
 * A `/generate` answer as the `SglangGenerateResponse` schema reads it (its fields in its order,
 * others dropped), confirmed by hand, or undefined for anything the schema must read (and name what
 * is wrong). Once a turn, zod's generic walk of every token's logprob cost more than this.
 */
export function readSglangGenerateResponse(value: unknown): SglangGenerateResponse | undefined {
  if (!isRecord(value) || !isRecord(value.meta_info)) return undefined;
  const { text, output_ids, prompt_token_ids } = value;
  const meta = readMetaInfo(value.meta_info);
  if (!meta || typeof text !== 'string' || (output_ids !== undefined && !isIntList(output_ids)) || (prompt_token_ids != null && !isIntList(prompt_token_ids)))
    return undefined;
  // The schema's keys in its order; an optional one only when the answer has it.
  const answer: Record<string, unknown> = { text };
  if ('output_ids' in value) answer.output_ids = output_ids;
  if ('prompt_token_ids' in value) answer.prompt_token_ids = prompt_token_ids;
  answer.meta_info = meta;
  return answer as SglangGenerateResponse;
}

function readMetaInfo(value: Record<string, unknown>): MetaInfo | undefined {
  const { finish_reason, prompt_tokens, completion_tokens, output_token_logprobs, weight_version } = value;
  if (!isInt(prompt_tokens) || !isInt(completion_tokens) || (output_token_logprobs !== undefined && !isTokenLogprobs(output_token_logprobs))) return undefined;
  if (weight_version != null && typeof weight_version !== 'string' && !isNumber(weight_version)) return undefined;
  let finish: Record<string, unknown> | null = null;
  if (finish_reason !== null) {
    if (!isRecord(finish_reason) || typeof finish_reason.type !== 'string') return undefined;
    const { matched } = finish_reason;
    if (matched != null && typeof matched !== 'string' && !isNumber(matched)) return undefined;
    finish = { type: finish_reason.type };
    if ('matched' in finish_reason) finish.matched = matched;
  }
  const meta: Record<string, unknown> = { finish_reason: finish, prompt_tokens, completion_tokens };
  if ('output_token_logprobs' in value) meta.output_token_logprobs = output_token_logprobs;
  if ('weight_version' in value) meta.weight_version = weight_version;
  return meta as MetaInfo;
}

/** `[logprob, token_id, text | null]` per token. */
function isTokenLogprobs(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (const entry of value) {
    if (!Array.isArray(entry) || entry.length !== 3 || !isNumber(entry[0]) || !isInt(entry[1]) || (typeof entry[2] !== 'string' && entry[2] !== null))
      return false;
  }
  return true;
}

// Fast path: mirrors the VllmCompletionsResponse schema; 69× faster (docs/fast-paths.md#hand-checks); guard: test/policy/wire-response-fast-path.test.ts.
import { isRecord } from '../../util/is-record.js';
import { isCount, isIntList, isNumber, isNumberOrNullList, readUsage } from '../wire-checks.fast.js';
import type { VllmCompletionsResponse } from './vllm-completions-wire-types.js';

type Choice = VllmCompletionsResponse['choices'][number];

/**
 * A `/v1/completions` answer as the `VllmCompletionsResponse` schema reads it (its fields in its
 * order, others dropped), confirmed by hand, or undefined for anything the schema must read (and name
 * what is wrong). Once a turn, zod's generic walk cost more than this.
 */
export function readVllmCompletionsResponse(value: unknown): VllmCompletionsResponse | undefined {
  if (!isRecord(value) || !Array.isArray(value.choices) || value.choices.length === 0) return undefined;
  const usage = readUsage(value.usage);
  if (!usage) return undefined;
  const choices: Choice[] = [];
  for (const item of value.choices) {
    const choice = readChoice(item);
    if (!choice) return undefined;
    choices.push(choice);
  }
  return { choices, usage };
}

function readChoice(value: unknown): Choice | undefined {
  if (!isRecord(value)) return undefined;
  const { text, token_ids, prompt_token_ids, logprobs, finish_reason, stop_reason, policy_version } = value;
  if (typeof text !== 'string' || (typeof finish_reason !== 'string' && finish_reason !== null)) return undefined;
  if ((token_ids != null && !isIntList(token_ids)) || (prompt_token_ids != null && !isIntList(prompt_token_ids))) return undefined;
  if (stop_reason != null && typeof stop_reason !== 'string' && !isNumber(stop_reason)) return undefined;
  if (logprobs != null && !(isRecord(logprobs) && isNumberOrNullList(logprobs.token_logprobs))) return undefined;
  if (policy_version !== undefined && !isCount(policy_version)) return undefined;
  // The schema's keys in its order; an optional one only when the answer has it.
  const choice: Record<string, unknown> = { text };
  if ('token_ids' in value) choice.token_ids = token_ids;
  if ('prompt_token_ids' in value) choice.prompt_token_ids = prompt_token_ids;
  if ('logprobs' in value) choice.logprobs = logprobs == null ? logprobs : { token_logprobs: logprobs.token_logprobs };
  choice.finish_reason = finish_reason;
  if ('stop_reason' in value) choice.stop_reason = stop_reason;
  if ('policy_version' in value) choice.policy_version = policy_version;
  return choice as Choice;
}

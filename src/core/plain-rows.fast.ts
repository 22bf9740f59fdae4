// Fast path: mirrors the ResultRow and ResultRowHead schemas; 8.8× (whole row), 2.7× (head) faster (docs/fast-paths.md#hand-checks); guard: test/core/result-row-fast-path.test.ts.
import { FinishReason } from './finish-reason.js';
import { Message, Role } from './message.js';
import { SamplingParams } from './sampling-params.js';
import { Termination, TerminationKind } from './termination.js';
import { TurnRecord } from './turn-record.js';
import { isRecord } from '../util/is-record.js';

function isIndex(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/**
 * Whether a successful row (of the current version) is one the ResultRow schema (`heavy`), or the
 * ResultRowHead schema that leaves messages and sampling unchecked, returns unchanged (no defaults to
 * fill, no unknown keys to drop from the strict objects) but for the order of its top-level keys: rows
 * as gymnast writes them. zod's generic walk of every message's token ids and logprobs was the bulk of
 * reading a run back (aggregate, health); anything this declines goes through the schema, which names
 * the problem.
 */
export function isPlainResultRow(row: Record<string, unknown>, heavy: boolean): boolean {
  const {
    response,
    agent_ref: agent,
    _ng_attempt_index: attempt,
    duration_ms: duration,
    started_at: started,
    reward_components: components,
    extracted_answer: answer,
  } = row;
  if (!isRecord(row.responses_create_params) || !isRecord(agent) || !isRecord(response)) return false;
  const { output, usage } = response;
  return (
    typeof agent.name === 'string' &&
    agent.name.length > 0 &&
    (agent.type === undefined || typeof agent.type === 'string') &&
    isIndex(row._ng_task_index) &&
    isIndex(row._ng_rollout_index) &&
    (attempt === undefined || (isIndex(attempt) && attempt > 0)) &&
    (duration === null || (isNumber(duration) && duration >= 0)) &&
    optional(started, isNonnegative) &&
    isNumber(row.reward) &&
    (output === undefined || Array.isArray(output)) &&
    (usage === undefined || usage === null || isUsage(usage)) &&
    (components === undefined || isNumberRecord(components)) &&
    optional(row.terminated, isBoolean) &&
    optional(row.truncated, isBoolean) &&
    optional(row.has_training_tokens, isBoolean) &&
    (row.evaluation_only === undefined || row.evaluation_only === true) &&
    optional(row.num_turns, isIndex) &&
    optional(row.token_drift_count, isIndex) &&
    optional(row.drift_unchecked, isIndex) &&
    (answer === undefined || answer === null || typeof answer === 'string') &&
    optional(row.termination, isTermination) &&
    optional(row.turns, (turns) => Array.isArray(turns) && turns.every(isTurn)) &&
    (!heavy || (optional(row.messages, (messages) => Array.isArray(messages) && messages.every(isMessage)) && optional(row.sampling, isSampling)))
  );
}

const TERMINATION_KINDS = new Set(TerminationKind.options);
const FINISH_REASONS = new Set(FinishReason.shape.unified.options);
const ROLES = new Set(Role.options);

function isTermination(value: unknown): boolean {
  return isRecord(value) && TERMINATION_KINDS.has(value.kind as TerminationKind) && optional(value.detail, isString) && hasOnly(value, Termination.shape);
}

function isTurn(value: unknown): boolean {
  if (!isRecord(value)) return false;
  const { finish_reason: finish, timing, token_drift: drift, logprobs_mode: mode, answer } = value;
  return (
    isIndex(value.index) &&
    isIndex(value.prompt_tokens) &&
    isIndex(value.generated_tokens) &&
    isIndex(value.env_tokens) &&
    isNumber(value.reward) &&
    isBoolean(value.observation_truncated) &&
    (value.generation_cut === undefined || value.generation_cut === 'max-tokens' || value.generation_cut === 'max-seq-len') &&
    (value.max_seq_len_reached === undefined || value.max_seq_len_reached === true) &&
    isRecord(finish) &&
    FINISH_REASONS.has(finish.unified as FinishReason['unified']) &&
    optional(finish.raw, isString) &&
    hasOnly(finish, FinishReason.shape) &&
    isRecord(timing) &&
    optional(timing.start_ms, isNonnegative) &&
    isNumber(timing.generation_ms) &&
    timing.generation_ms >= 0 &&
    isNumber(timing.env_ms) &&
    timing.env_ms >= 0 &&
    hasOnly(timing, TurnRecord.shape.timing.shape) &&
    (mode === undefined || mode === 'raw' || mode === 'processed') &&
    optional(value.policy_version, isIndex) &&
    optional(value.server, isString) &&
    optional(value.reward_components, isNumberRecord) &&
    (answer === undefined || answer === null || typeof answer === 'string') &&
    optional(value.env_terminated, isBoolean) &&
    optional(value.env_truncated, isBoolean) &&
    optional(value.drift_unchecked, isBoolean) &&
    // Rare (a drifted turn): the schema checks it.
    drift === undefined &&
    hasOnly(value, TurnRecord.shape)
  );
}

function isMessage(value: unknown): boolean {
  if (!isRecord(value)) return false;
  const { token_ids: ids, generation_logprobs: logprobs } = value;
  return (
    ROLES.has(value.role as Role) &&
    isString(value.content) &&
    optional(value.reasoning_content, isString) &&
    optional(value.tool_call_id, isString) &&
    // Tool calls have a default (`type`): the schema reads them.
    value.tool_calls === undefined &&
    optional(ids, (list) => Array.isArray(list) && list.every(isIndex)) &&
    (logprobs === undefined ||
      (value.role === 'assistant' && Array.isArray(logprobs) && logprobs.length === (ids as unknown[] | undefined)?.length && logprobs.every(isNumber))) &&
    hasOnly(value, MESSAGE_KEYS)
  );
}
const MESSAGE_KEYS = Message.shape;

/** Sampling as recorded: every defaulted field present (else the schema fills it in). */
function isSampling(value: unknown): boolean {
  if (!isRecord(value)) return false;
  const { temperature, top_p: topP, top_k: topK, max_tokens: maxTokens, seed, greedy } = value;
  return (
    isNumber(temperature) &&
    temperature >= 0 &&
    isNumber(topP) &&
    topP > 0 &&
    topP <= 1 &&
    optional(topK, isIndex) &&
    isIndex(maxTokens) &&
    maxTokens > 0 &&
    optional(seed, Number.isSafeInteger) &&
    isBoolean(greedy) &&
    hasOnly(value, SamplingParams.shape)
  );
}

function isUsage(value: unknown): boolean {
  return isRecord(value) && optional(value.input_tokens, isNumber) && optional(value.output_tokens, isNumber) && optional(value.total_tokens, isNumber);
}

function isNumberRecord(value: unknown): boolean {
  if (!isRecord(value)) return false;
  for (const key in value) if (!isNumber(value[key])) return false;
  return true;
}

/** No key but the schema's (a strict object drops the others, so the row would not come back unchanged). */
function hasOnly(value: Record<string, unknown>, shape: object): boolean {
  for (const key in value) if (!Object.hasOwn(shape, key)) return false;
  return true;
}

const optional = (value: unknown, is: (value: unknown) => boolean) => value === undefined || is(value);
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isNonnegative = (value: unknown): boolean => isNumber(value) && value >= 0;
const isString = (value: unknown): value is string => typeof value === 'string';
const isBoolean = (value: unknown): value is boolean => typeof value === 'boolean';

import type { z } from 'zod';
import { InvalidRowError } from './errors/invalid-row-error.js';
import { toFailureClass } from './failure-class.js';
import { FinishReason } from './finish-reason.js';
import { Message, Role } from './message.js';
import { FailureRow, MaterializedRow, ResultRow, ROW_SCHEMA_VERSION, RowKeys } from './result-row.js';
import { SamplingParams } from './sampling-params.js';
import { Termination, TerminationKind } from './termination.js';
import { TurnRecord } from './turn-record.js';
import { isRecord } from '../util/is-record.js';
import { inSchemaOrder } from '../util/in-schema-order.js';

/**
 * A row without its heavy fields checked: `messages`, `env_metadata`, `terminal_env_metadata` and
 * `sampling` can hold thousands of numbers a row, and metrics, resume and indexes do not need them
 * (they stay in the row, typed unknown).
 */
const HEAVY_FIELDS = { messages: true, env_metadata: true, terminal_env_metadata: true, sampling: true } as const;
export const ResultRowHead = ResultRow.omit(HEAVY_FIELDS);
export type ResultRowHead = z.infer<typeof ResultRowHead>;
export const FailureRowHead = FailureRow.omit(HEAVY_FIELDS);
export type FailureRowHead = z.infer<typeof FailureRowHead>;

/** A row read back from a file: a success for the main file, or a failure for the sidecar. */
export type ReadRow = { kind: 'result'; row: ResultRowHead } | { kind: 'failure'; row: FailureRowHead };
export type ReadFullRow = { kind: 'result'; row: ResultRow } | { kind: 'failure'; row: FailureRow };

/**
 * Reads one parsed JSON value as a row of the current schema version, upgrading older versions
 * explicitly and refusing newer ones. `where` (file:line) names the row in every error.
 */
export function readRow(value: unknown, where: string): ReadRow {
  const current = upgrade(value, where);
  if (current._ng_failure_class !== undefined) return { kind: 'failure', row: check(FailureRowHead, current, where) };
  if (isPlainResultRow(current, false)) return { kind: 'result', row: inSchemaOrder(current, HEAD_KEYS) as ResultRowHead };
  return { kind: 'result', row: check(ResultRowHead, current, where) };
}

/** `readRow` with every field checked, messages and their token ids included (for the viewer, exports). */
export function readFullRow(value: unknown, where: string): ReadFullRow {
  const current = upgrade(value, where);
  if (current._ng_failure_class !== undefined) return { kind: 'failure', row: check(FailureRow, current, where) };
  if (isPlainResultRow(current, true)) return { kind: 'result', row: inSchemaOrder(current, FULL_KEYS) as ResultRow };
  return { kind: 'result', row: check(ResultRow, current, where) };
}

/**
 * A planned rollout read back from the materialized inputs. Read by the schema: a hand check and its
 * copy in the schema's key order saved under a microsecond a row (docs/fast-paths.md#deleted-twins).
 */
export function readMaterializedRow(value: unknown, where: string): MaterializedRow {
  return check(MaterializedRow, value, where);
}

/**
 * A planned rollout read back by the run that wrote it (admission, once per rollout): every field was
 * checked when the row was planned, and the file is the run's own (on resume, checked against the
 * recorded plan's hash), so only the fields admission reads are confirmed here, without the schema's
 * copy of the row. Anything else goes through `readMaterializedRow`, which names the problem.
 */
export function readOwnMaterializedRow(value: unknown, where: string): MaterializedRow {
  return isPlannedRollout(value) ? value : readMaterializedRow(value, where);
}

function isPlannedRollout(value: unknown): value is MaterializedRow {
  if (!isRecord(value) || !isRecord(value.responses_create_params) || !isRecord(value.agent_ref)) return false;
  const { name, type } = value.agent_ref;
  const attempt = value._ng_attempt_index;
  return (
    typeof name === 'string' &&
    name.length > 0 &&
    (type === undefined || typeof type === 'string') &&
    isIndex(value._ng_task_index) &&
    isIndex(value._ng_rollout_index) &&
    (attempt === undefined || (isIndex(attempt) && attempt > 0))
  );
}

function isIndex(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** Only the keys of a row (resume needs nothing else), from any schema version. */
export function readRowKeys(value: unknown, where: string): RowKeys {
  return check(RowKeys, upgrade(value, where), where);
}

/**
 * Version 1 (no `schema_version`: gymnast 0.1 and NeMo Gym's own files) in today's shape: no duration
 * was recorded; NeMo Gym's defaults for missing keys (task and rollout 0, agent "agent"); NeMo Gym's
 * failure classes mapped onto ours (the original kept); and no reward on a failure, which NeMo Gym's
 * judge failures carry as a placeholder 0.
 */
function upgrade(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidRowError(where, '', 'expected a JSON object');
  const row = value as Record<string, unknown>;
  const version = row.schema_version;
  if (version === ROW_SCHEMA_VERSION) return row;
  if (typeof version === 'number' && Number.isInteger(version) && version > ROW_SCHEMA_VERSION) {
    throw new InvalidRowError(where, 'schema_version', `written by a newer gymnast (schema version ${version}; this one reads versions 1 to ${ROW_SCHEMA_VERSION}): upgrade gymnast to read it`);
  }
  if (version !== undefined) throw new InvalidRowError(where, 'schema_version', `expected ${ROW_SCHEMA_VERSION} or absent (version 1), got ${JSON.stringify(version)}`);
  const { reward, ...rest } = row;
  const upgraded: Record<string, unknown> = {
    responses_create_params: {},
    agent_ref: { name: 'agent' },
    _ng_task_index: 0,
    _ng_rollout_index: 0,
    duration_ms: null,
    // NeMo Gym's compute_aggregate_metrics reads a row without one as `response: {}` (genrm_compare stores such rows).
    response: {},
    ...rest,
    schema_version: ROW_SCHEMA_VERSION,
  };
  const failureClass = row._ng_failure_class;
  if (failureClass === undefined) return reward === undefined ? upgraded : { ...upgraded, reward };
  if (typeof failureClass !== 'string') throw new InvalidRowError(where, '_ng_failure_class', `expected a string, got ${JSON.stringify(failureClass)}`);
  const ours = toFailureClass(failureClass);
  return { ...upgraded, _ng_failure_class: ours, ...(ours === failureClass ? {} : { nemo_gym_failure_class: failureClass }) };
}

/*
 * Successful rows as gymnast writes them are confirmed by hand: zod's generic walk of every message's
 * token ids and logprobs cost about 30 µs a row, the bulk of reading a run back (aggregate, health).
 * A row passes only when the schema would return it unchanged (no defaults to fill, no unknown keys to
 * drop from the strict objects) but for the order of its top-level keys, which is rebuilt as the
 * schema's (metric columns follow it). Anything else goes through the schema, which names the problem.
 */
const FULL_KEYS = Object.keys(ResultRow.shape);
const HEAD_KEYS = Object.keys(ResultRowHead.shape);

/** `heavy`: also the fields the head leaves unchecked (messages, sampling). */
function isPlainResultRow(row: Record<string, unknown>, heavy: boolean): boolean {
  const { response, agent_ref: agent, _ng_attempt_index: attempt, duration_ms: duration, reward_components: components, extracted_answer: answer } = row;
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
    isNumber(timing.generation_ms) &&
    timing.generation_ms >= 0 &&
    isNumber(timing.env_ms) &&
    timing.env_ms >= 0 &&
    hasOnly(timing, TurnRecord.shape.timing.shape) &&
    (mode === undefined || mode === 'raw' || mode === 'processed') &&
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
    (logprobs === undefined || (value.role === 'assistant' && Array.isArray(logprobs) && logprobs.length === (ids as unknown[] | undefined)?.length && logprobs.every(isNumber))) &&
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
const isString = (value: unknown): value is string => typeof value === 'string';
const isBoolean = (value: unknown): value is boolean => typeof value === 'boolean';

function check<S extends z.ZodType>(schema: S, value: unknown, where: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new InvalidRowError(where, issue.path.join('.'), issue.message);
}

import type { z } from 'zod';
import { InvalidRowError } from './errors/invalid-row-error.js';
import { restoreRowTokens } from './compact-row-tokens.js';
import { toFailureClass } from './failure-class.js';
import { isPlainResultRow } from './plain-rows.fast.js';
import { FailureRow, MaterializedRow, ResultRow, ROW_SCHEMA_VERSION, RowKeys } from './result-row.js';
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

/**
 * `readRow` with every field checked, messages and their token ids included (for the viewer, exports):
 * the ids a row stores once, on `response.output`, are put back on its messages (`restoreRowTokens`).
 */
export function readFullRow(value: unknown, where: string): ReadFullRow {
  const current = restoreRowTokens(upgrade(value, where), where);
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
 * A planned rollout read back by the run that wrote it (admission, once per rollout): checked by the
 * schema, and kept as it is rather than the schema's copy, since output rows follow the order of its
 * keys as the run wrote them (the schema, which has no defaults, would return the same fields in its
 * own order). A hand check of it saved 0.6 µs a rollout (docs/fast-paths.md#deleted-twins).
 */
export function readOwnMaterializedRow(value: unknown, where: string): MaterializedRow {
  check(MaterializedRow, value, where);
  return value as MaterializedRow;
}

/** Only the keys of a row (resume needs nothing else), from any schema version. */
export function readRowKeys(value: unknown, where: string): RowKeys {
  return check(RowKeys, upgrade(value, where), where);
}

/**
 * Version 1 (no `schema_version`: gymnast 0.1 and NeMo Gym's own files) in today's shape: no duration
 * was recorded; NeMo Gym's defaults for missing keys (task and rollout 0, agent "agent"); NeMo Gym's
 * failure classes mapped onto ours (the original kept); and no reward on a failure, which NeMo Gym's
 * judge failures carry as a placeholder 0. Version 2 is version 3 with every message's ids on the
 * message (a version 3 row may keep them there too).
 */
function upgrade(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidRowError(where, '', 'expected a JSON object');
  const row = value as Record<string, unknown>;
  const version = row.schema_version;
  if (version === ROW_SCHEMA_VERSION) return row;
  if (version === 2) return { ...row, schema_version: ROW_SCHEMA_VERSION };
  if (typeof version === 'number' && Number.isInteger(version) && version > ROW_SCHEMA_VERSION) {
    throw new InvalidRowError(
      where,
      'schema_version',
      `written by a newer gymnast (schema version ${version}; this one reads versions 1 to ${ROW_SCHEMA_VERSION}): upgrade gymnast to read it`,
    );
  }
  if (version !== undefined)
    throw new InvalidRowError(where, 'schema_version', `expected 2, ${ROW_SCHEMA_VERSION} or absent (version 1), got ${JSON.stringify(version)}`);
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

/** The keys of a row as the schemas return them: a row confirmed by hand is copied in this order (metric columns follow it). */
const FULL_KEYS = Object.keys(ResultRow.shape);
const HEAD_KEYS = Object.keys(ResultRowHead.shape);

function check<S extends z.ZodType>(schema: S, value: unknown, where: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new InvalidRowError(where, issue.path.join('.'), issue.message);
}

import { z } from 'zod';
import { AgentRef } from '../core/agent-ref.js';
import { parseWithIssues, type SchemaIssue } from '../core/schema-issues.js';
import { inSchemaOrder } from '../util/in-schema-order.js';
import { isOwnRecord } from '../util/is-record.js';

/**
 * One input row in NeMo Gym's format: the Responses-API request (`responses_create_params`, with `input`
 * and optional `tools` and sampling fields), an optional `agent_ref`, an optional caller-stamped
 * `_ng_task_index` (read only under `--keep-task-indices`: NeMo Gym's collector overwrites it), and any task fields the environment reads (`expected_answer`, `question`, …).
 */
export const DatasetRow = z.looseObject({
  responses_create_params: z.looseObject({ input: z.union([z.string(), z.array(z.record(z.string(), z.unknown()))]).optional() }).optional(),
  agent_ref: AgentRef.optional(),
  _ng_task_index: z.number().int().nonnegative().optional(),
});
export type DatasetRow = z.infer<typeof DatasetRow>;

/**
 * A parsed input line read as `DatasetRow`. Each line is read twice (checked, then planned), and zod's
 * walk of it was most of a small row's cost, so rows of the common plain shape are confirmed by hand
 * and handed back as the schema returns them (its keys first); anything else goes through the schema,
 * which words the problem.
 */
export function readDatasetRow(value: unknown): { data: DatasetRow } | { issues: SchemaIssue[] } {
  return isPlainDatasetRow(value) ? { data: plainRow(value) } : parseWithIssues(DatasetRow, value);
}

const ROW_KEYS = Object.keys(DatasetRow.shape);
const REQUEST_KEYS = Object.keys(DatasetRow.shape.responses_create_params.unwrap().shape);
const AGENT_KEYS = Object.keys(AgentRef.shape);

function isPlainDatasetRow(value: unknown): value is Record<string, unknown> {
  if (!isOwnRecord(value)) return false;
  const { responses_create_params: request, agent_ref: agent, _ng_task_index: task } = value;
  return (
    (request === undefined || (isOwnRecord(request) && isPlainInput(request.input))) &&
    (agent === undefined || (isOwnRecord(agent) && typeof agent.name === 'string' && agent.name.length > 0 && (agent.type === undefined || typeof agent.type === 'string'))) &&
    (task === undefined || (Number.isSafeInteger(task) && (task as number) >= 0))
  );
}

function isPlainInput(input: unknown): boolean {
  return input === undefined || typeof input === 'string' || (Array.isArray(input) && input.every(isOwnRecord));
}

function plainRow(row: Record<string, unknown>): DatasetRow {
  const { responses_create_params: request, agent_ref: agent } = row;
  const ordered = inSchemaOrder(row, ROW_KEYS);
  if (request !== undefined) ordered.responses_create_params = inSchemaOrder(request as Record<string, unknown>, REQUEST_KEYS);
  if (agent !== undefined) ordered.agent_ref = inSchemaOrder(agent as Record<string, unknown>, AGENT_KEYS);
  return ordered as DatasetRow;
}

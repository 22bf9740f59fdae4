import { z } from 'zod';
import { AgentRef } from '../core/agent-ref.js';
import { parseWithIssues, type SchemaIssue } from '../core/schema-issues.js';

/**
 * One input row in NeMo Gym's format: the Responses-API request (`responses_create_params`, with `input`
 * and optional `tools` and sampling fields), an optional `agent_ref`, an optional caller-stamped
 * `_ng_task_index`, and any task fields the environment reads (`expected_answer`, `question`, …).
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
  if (!isOwnObject(value)) return false;
  const { responses_create_params: request, agent_ref: agent, _ng_task_index: task } = value;
  return (
    (request === undefined || (isOwnObject(request) && isPlainInput(request.input))) &&
    (agent === undefined || (isOwnObject(agent) && typeof agent.name === 'string' && agent.name.length > 0 && (agent.type === undefined || typeof agent.type === 'string'))) &&
    (task === undefined || (Number.isSafeInteger(task) && (task as number) >= 0))
  );
}

function isPlainInput(input: unknown): boolean {
  return input === undefined || typeof input === 'string' || (Array.isArray(input) && input.every(isOwnObject));
}

/**
 * An object whose keys the schema copies as they are: not a list, and without a `__proto__` key
 * (JSON.parse makes it an own key, which the schema's copy drops or turns into a prototype).
 */
function isOwnObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Object.hasOwn(value, '__proto__');
}

function plainRow(row: Record<string, unknown>): DatasetRow {
  const { responses_create_params: request, agent_ref: agent } = row;
  const ordered = inSchemaOrder(row, ROW_KEYS);
  if (request !== undefined) ordered.responses_create_params = inSchemaOrder(request as Record<string, unknown>, REQUEST_KEYS);
  if (agent !== undefined) ordered.agent_ref = inSchemaOrder(agent as Record<string, unknown>, AGENT_KEYS);
  return ordered as DatasetRow;
}

/** The object's keys as a loose object schema returns them: the schema's own in its order, then the others in the object's. */
function inSchemaOrder(value: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const ordered: Record<string, unknown> = {};
  for (const key of keys) if (Object.hasOwn(value, key)) ordered[key] = value[key];
  for (const key in value) if (!Object.hasOwn(ordered, key)) ordered[key] = value[key];
  return ordered;
}

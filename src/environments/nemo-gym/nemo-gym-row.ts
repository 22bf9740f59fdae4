import { z } from 'zod';
import { EnvironmentError } from '../../core/errors/environment-error.js';
import { ResponsesItem, responsesInputToMessages } from '../../core/responses-items.js';
import { parseTaskData } from '../parse-task-data.js';

/**
 * The task data the NeMo Gym environments read: the whole materialized row (request, agent, keys and
 * every task field), which is what NeMo Gym's agents send to `/seed_session`, `/reset`, `/verify` and `/step`.
 */
export const NemoGymRow = z.looseObject({
  responses_create_params: z.looseObject({
    input: z.union([z.string(), z.array(ResponsesItem)]),
    tools: z.array(z.unknown()).optional(),
    model: z.string().nullable().optional(),
  }),
  _ng_task_index: z.number().optional(),
  _ng_rollout_index: z.number().optional(),
});
export type NemoGymRow = z.infer<typeof NemoGymRow>;

/** The row an episode runs, checked; what is sent is the row as it came, never the parsed copy. */
export function readRow(environment: string, data: unknown): { row: Record<string, unknown>; read: NemoGymRow } {
  if (data === undefined) throw new EnvironmentError(environment, 'the step was not handed the task data (the engine hands it; call step with `data`)');
  return { row: data as Record<string, unknown>, read: parseTaskData(environment, NemoGymRow, data) };
}

/** Messages of the row's own prompt: the response's output starts after them. */
export function promptLength(row: NemoGymRow): number {
  return responsesInputToMessages(row.responses_create_params.input).length;
}

/** The replica an episode's calls stick to: its state lives on that server. */
export const sessionKey = (row: NemoGymRow) => `${row._ng_task_index ?? 0}:${row._ng_rollout_index ?? 0}`;

/** A response id that is the same on every run of the same rollout. */
export const responseId = (row: NemoGymRow, suffix = '') => `resp_gymnast_${sessionKey(row).replace(':', '_')}${suffix}`;

export const responseModel = (row: NemoGymRow) => row.responses_create_params.model ?? 'gymnast';

export const responseTools = (row: NemoGymRow) => row.responses_create_params.tools ?? [];

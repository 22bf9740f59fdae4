import { z } from 'zod';
import { AgentRef } from '../core/agent-ref.js';

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

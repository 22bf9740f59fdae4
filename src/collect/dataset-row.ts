import { z } from 'zod';

/** `{"type": "responses_api_agents", "name": …}`; only `name` is read, as in NeMo Gym. */
export const AgentRef = z.object({ name: z.string().min(1), type: z.string().optional() }).passthrough();
export type AgentRef = z.infer<typeof AgentRef>;

/**
 * One input row in NeMo Gym's format: the Responses-API request (`responses_create_params`, with `input`
 * and optional `tools` and sampling fields), an optional `agent_ref`, an optional caller-stamped
 * `_ng_task_index`, and any task fields the environment reads (`expected_answer`, `question`, …).
 */
export const DatasetRow = z
  .object({
    responses_create_params: z.object({ input: z.union([z.string(), z.array(z.record(z.string(), z.unknown()))]).optional() }).passthrough().optional(),
    agent_ref: AgentRef.optional(),
    _ng_task_index: z.number().int().nonnegative().optional(),
  })
  .passthrough();
export type DatasetRow = z.infer<typeof DatasetRow>;

/** A row after expansion: one planned rollout, exactly as written to `<stem>_materialized_inputs.jsonl`. */
export type MaterializedRow = DatasetRow & {
  responses_create_params: Record<string, unknown>;
  agent_ref: AgentRef;
  _ng_task_index: number;
  _ng_rollout_index: number;
};

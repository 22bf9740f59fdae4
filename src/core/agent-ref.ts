import { z } from 'zod';

/** NeMo Gym's `agent_ref`: `{"type": "responses_api_agents", "name": …}`; only `name` is read. */
export const AgentRef = z.looseObject({ name: z.string().min(1), type: z.string().optional() });
export type AgentRef = z.infer<typeof AgentRef>;

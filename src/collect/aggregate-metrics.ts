import { z } from 'zod';

/** NeMo Gym's `AggregateMetrics`, as an agent or resources server answers `/aggregate_metrics`. */
export const AggregateMetrics = z.looseObject({
  agent_metrics: z.record(z.string(), z.unknown()),
  key_metrics: z.record(z.string(), z.unknown()),
  group_level_metrics: z.array(z.record(z.string(), z.unknown())),
});
export type AggregateMetrics = z.infer<typeof AggregateMetrics>;

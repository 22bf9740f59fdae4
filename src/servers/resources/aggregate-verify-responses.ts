import { z } from 'zod';
import { aggregateRows } from '../../collect/aggregate-rows.js';
import type { AgentMetrics, GroupLevelMetrics } from '../../metrics/index.js';

/** NeMo Gym's `AggregateMetricsRequest`: the (stripped) verify responses of a run. */
export const AggregateMetricsRequest = z.object({ verify_responses: z.array(z.looseObject({})) });
export type AggregateMetricsRequest = z.infer<typeof AggregateMetricsRequest>;

/** NeMo Gym's `AggregateMetrics`. */
export interface AggregateMetrics {
  group_level_metrics: GroupLevelMetrics[];
  agent_metrics: AgentMetrics;
  key_metrics: Record<string, number>;
}

/**
 * NeMo Gym's `compute_aggregate_metrics` over verify responses, by the same reducer an agent
 * server's `/aggregate_metrics` uses (`aggregateRows`): stripped fields defaulted, rows with
 * `_ng_failure_class` counted as failures, `extracted_answer` feeding majority@k when present.
 */
export function aggregateVerifyResponses(verifyResponses: readonly Record<string, unknown>[]): AggregateMetrics {
  const aggregate = aggregateRows(verifyResponses, { agent: 'agent' });
  return { group_level_metrics: [...aggregate.group_level_metrics], agent_metrics: aggregate.agent_metrics, key_metrics: aggregate.key_metrics };
}

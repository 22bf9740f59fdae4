import { z } from 'zod';
import { readRow } from '../../core/row-reader.js';
import { AggregateAccumulator, type GroupLevelMetrics } from '../../metrics/index.js';

/** NeMo Gym's `AggregateMetricsRequest`: the (stripped) verify responses of a run. */
export const AggregateMetricsRequest = z.object({ verify_responses: z.array(z.looseObject({})) });
export type AggregateMetricsRequest = z.infer<typeof AggregateMetricsRequest>;

/** NeMo Gym's `AggregateMetrics`. */
export interface AggregateMetrics {
  group_level_metrics: GroupLevelMetrics[];
  agent_metrics: Record<string, number>;
  key_metrics: Record<string, number>;
}

/**
 * NeMo Gym's `compute_aggregate_metrics` over verify responses, by gymnast's metrics (the same
 * reducers `gymnast aggregate` uses for one agent): missing keys default to task and rollout 0,
 * rows with `_ng_failure_class` count as failures, and `extracted_answer` feeds majority@k when present.
 */
export function aggregateVerifyResponses(verifyResponses: readonly Record<string, unknown>[]): AggregateMetrics {
  const accumulator = new AggregateAccumulator({ agent: 'agent', answerKey: { field: 'extracted_answer', auto: true } });
  verifyResponses.forEach((value, i) => {
    // A stripped verify response may lack `response`; a result row needs one to read.
    const read = readRow({ response: {}, ...value }, `verify_responses[${i}]`);
    if (read.kind === 'failure') accumulator.addFailure(read.row);
    else accumulator.addResult(read.row);
  });
  const aggregate = accumulator.finish();
  return { group_level_metrics: [...aggregate.group_level_metrics], agent_metrics: aggregate.agent_metrics, key_metrics: aggregate.key_metrics };
}

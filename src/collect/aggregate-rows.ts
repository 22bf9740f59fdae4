import { InvalidRowError } from '../core/errors/invalid-row-error.js';
import { readRow } from '../core/row-reader.js';
import { AggregateAccumulator, type AgentAggregate } from '../metrics/index.js';

export interface AggregateRowsOptions {
  /** The agent the aggregate is named after (an agent server aggregates its own rollouts only). */
  agent: string;
  /** The task's own fields, which rows echo but are not metrics (see `MetricColumns`). */
  taskFields?: Iterable<string>;
  /** The field holding each rollout's extracted answer; by default `extracted_answer` when any row has it. */
  answerKey?: string;
}

/**
 * NeMo Gym's aggregate metrics over rows held in memory: what an agent server's `/aggregate_metrics`
 * gets. The collector strips what it sends (`responses_create_params` gone, `response` reduced to its
 * usage), so the fields a file row must have are defaulted as NeMo Gym defaults them; a row with
 * `_ng_failure_class` counts as a failed rollout. Errors name the row as `verify_responses[i]`.
 */
export function aggregateRows(rows: readonly unknown[], options: AggregateRowsOptions): AgentAggregate {
  const accumulator = new AggregateAccumulator({
    agent: options.agent,
    ...(options.taskFields ? { taskFields: options.taskFields } : {}),
    answerKey: options.answerKey === undefined ? { field: 'extracted_answer', auto: true } : { field: options.answerKey },
  });
  const seen = new Map<string, number>();
  for (const [i, value] of rows.entries()) {
    const read = readRow(withStrippedDefaults(value), `verify_responses[${i}]`);
    refuseRepeat(seen, `${read.row._ng_task_index}:${read.row._ng_rollout_index}`, i);
    if (read.kind === 'failure') accumulator.addFailure(read.row);
    else accumulator.addResult(read.row);
  }
  return accumulator.finish();
}

/** A rollout sent twice (two rows without indices read as 0:0, say) is the caller's mistake, named at the second. */
function refuseRepeat(seen: Map<string, number>, key: string, index: number): void {
  const first = seen.get(key);
  if (first !== undefined)
    throw new InvalidRowError(
      `verify_responses[${index}]`,
      '_ng_rollout_index',
      `rollout ${key} appears twice (first at verify_responses[${first}]); give each rollout its own _ng_task_index and _ng_rollout_index`,
    );
  seen.set(key, index);
}

/** Puts back what NeMo Gym's collector strips before `/aggregate_metrics`; a non-object is left for `readRow` to refuse. */
function withStrippedDefaults(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const row = value as Record<string, unknown>;
  return { responses_create_params: {}, agent_ref: { name: 'agent' }, response: {}, _ng_task_index: 0, _ng_rollout_index: 0, ...row };
}

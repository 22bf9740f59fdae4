import type { ResultRowHead } from '../core/row-reader.js';
import { NumberList } from './number-list.js';

/** The numbers of `response.usage` that count as metrics (its `*_details` objects do not). */
export const USAGE_FIELDS = ['input_tokens', 'output_tokens', 'total_tokens'] as const;

/** gymnast's bookkeeping: numbers about the record, not about the rollout. */
const BOOKKEEPING_FIELDS = ['schema_version', 'duration_ms', 'started_at'] as const;

export interface MetricColumn {
  readonly name: string;
  /** The value of each row, by position; NaN where the row does not have the field. */
  values: NumberList;
  /** `usage` columns come from `response.usage`; `reward` is always a column. */
  source: 'reward' | 'field' | 'usage';
}

interface TrackedColumn extends MetricColumn {
  /** The first row (by task, then rollout) that has the field, and the field's rank in it: NeMo Gym's column order. */
  first: { task: number; rollout: number; rank: number };
}

/**
 * The metric columns of one agent's result rows, one compact column of numbers each.
 *
 * Which fields are metrics is NeMo Gym's rule (`RewardProfiler.profile_from_data`): every top-level
 * number or boolean (as 0/1) whose name does not start with `_`, plus `input_tokens`, `output_tokens`
 * and `total_tokens` of `response.usage`. Left out, beyond NeMo Gym's rule:
 * - gymnast's bookkeeping, `schema_version`, `duration_ms` and `started_at`;
 * - the task's own fields, when known (`taskFields`: the field names of the run's materialized inputs
 *   other than `responses_create_params`, `agent_ref` and `_ng_*`). A row echoes its input, and an
 *   `answer: 42` or a `difficulty: 3` there describes the question, not the rollout. `reward` is
 *   always a metric.
 *
 * Columns are ordered as NeMo Gym's DataFrame orders them when the rows are sorted by (task, rollout):
 * by first appearance, so the order does not depend on the order the rows arrived in; the reward
 * comes first and the usage numbers last, as in NeMo Gym's files.
 */
export class MetricColumns {
  readonly #excluded: ReadonlySet<string>;
  readonly #columns = new Map<string, TrackedColumn>();

  constructor(taskFields: Iterable<string> = []) {
    const excluded = new Set<string>([...BOOKKEEPING_FIELDS, ...taskFields]);
    excluded.delete('reward');
    this.#excluded = excluded;
  }

  /**
   * Records the metrics of the row at `position`; an unscored row (`scored: false`, a prompt that
   * never reached the model) has no reward, as a pandas row missing it: statistics skip it.
   */
  add(position: number, row: ResultRowHead, options: { scored?: boolean } = {}): void {
    let rank = 0;
    for (const name of Object.keys(row)) {
      if (name.startsWith('_') || this.#excluded.has(name) || (name === 'reward' && options.scored === false)) continue;
      const value = row[name];
      if (typeof value === 'number') this.#record(name, position, value, row, rank++);
      else if (typeof value === 'boolean') this.#record(name, position, value ? 1 : 0, row, rank++);
    }
    const usage = row.response.usage;
    for (const name of USAGE_FIELDS) {
      const value = usage?.[name];
      if (typeof value === 'number') this.#record(name, position, value, row, rank++, 'usage');
    }
  }

  /** Columns in NeMo Gym's statistics order: the reward, the other fields, then usage. */
  statisticsOrder(): MetricColumn[] {
    return this.#sorted(['reward', 'field', 'usage']);
  }

  /** Columns in the order of NeMo Gym's `rollout_infos`: the reward, usage, then the other fields. */
  rolloutInfoOrder(): MetricColumn[] {
    return this.#sorted(['reward', 'usage', 'field']);
  }

  #record(name: string, position: number, value: number, row: ResultRowHead, rank: number, source: 'field' | 'usage' = 'field'): void {
    const task = row._ng_task_index;
    const rollout = row._ng_rollout_index;
    let column = this.#columns.get(name);
    if (!column) {
      column = { name, values: new NumberList(), source: name === 'reward' ? 'reward' : source, first: { task, rollout, rank } };
      this.#columns.set(name, column);
    } else if (task < column.first.task || (task === column.first.task && rollout < column.first.rollout)) {
      column.first = { task, rollout, rank };
    }
    column.values.set(position, value);
  }

  #sorted(sources: readonly MetricColumn['source'][]): MetricColumn[] {
    const byAppearance = (a: TrackedColumn, b: TrackedColumn) =>
      a.first.task - b.first.task || a.first.rollout - b.first.rollout || a.first.rank - b.first.rank;
    const usageRank = (column: TrackedColumn) => (USAGE_FIELDS as readonly string[]).indexOf(column.name);
    return [...this.#columns.values()]
      .sort((a, b) => sources.indexOf(a.source) - sources.indexOf(b.source) || (a.source === 'usage' ? usageRank(a) - usageRank(b) : byAppearance(a, b)))
      .map(({ name, values, source }) => ({ name, values, source }));
  }
}

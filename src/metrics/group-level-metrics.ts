import { describeColumns } from './column-statistics.js';
import type { MetricColumn } from './metric-columns.js';
import type { RolloutKeyList } from './rollout-key-list.js';

/** One rollout in its task's group: its key and its metric values (NeMo Gym's `rollout_infos` entry). */
export interface RolloutInfo {
  rollout_id: string;
  _ng_task_index: number;
  _ng_rollout_index: number;
  [metric: string]: string | number;
}

/** NeMo Gym's statistics and completion figures for one task. */
export type GroupLevelMetrics = {
  _ng_task_index: number;
  /** `{agent_ref: {name}}` in aggregate metrics; the task's materialized input row in a reward profile. */
  sample: unknown;
  num_rollouts: number;
  expected_num_rollouts: number;
  missing_num_rollouts: number;
  reward_profile_completion_pct: number;
  /** Sorted by rollout index; only when asked for (`GroupSource.rolloutInfos`), as it grows with the rollouts. */
  rollout_infos?: RolloutInfo[];
} & { [statistic: `${string}/${string}`]: number };

/**
 * The per-task groups of an aggregate, made one at a time as they are iterated: a million rollouts'
 * groups are written as they are made, never held together. It can be iterated again; `toJSON`
 * builds every group, which suits small runs only.
 */
export class GroupLevelMetricsList implements Iterable<GroupLevelMetrics> {
  readonly #groups: () => Iterator<GroupLevelMetrics>;

  constructor(groups: () => Iterator<GroupLevelMetrics>) {
    this.#groups = groups;
  }

  [Symbol.iterator](): Iterator<GroupLevelMetrics> {
    return this.#groups();
  }

  toJSON(): GroupLevelMetrics[] {
    return [...this];
  }
}

export interface GroupSource {
  agent: string;
  keys: RolloutKeyList;
  /** Column order for the statistics, and for the rollout infos. */
  statistics: readonly MetricColumn[];
  infos: readonly MetricColumn[];
  /** The planned rollouts' task indices, sorted ascending (one entry per planned rollout). */
  planned: Float64Array;
  /** Whether each group lists its rollouts (NeMo Gym's `rollout_infos`). */
  rolloutInfos: boolean;
}

/**
 * Every task's group in task order. Expected rollouts come from the plan; a task the plan does not
 * list counts as complete.
 */
export function* groupLevelMetrics(source: GroupSource): Generator<GroupLevelMetrics> {
  const order = source.keys.order();
  const scratch = new Float64Array(order.length);
  let cursor = 0;
  for (const [start, end] of source.keys.taskRuns()) {
    const task = source.keys.task(order[start]!);
    while (cursor < source.planned.length && source.planned[cursor]! < task) cursor += 1;
    let planned = 0;
    for (; cursor < source.planned.length && source.planned[cursor] === task; cursor += 1) planned += 1;
    yield group(source, task, order.subarray(start, end), planned || end - start, scratch);
  }
}

function group(source: GroupSource, task: number, positions: Uint32Array, expected: number, scratch: Float64Array): GroupLevelMetrics {
  const count = positions.length;
  // The statistics go straight into the group, after its task index: a spread would copy them again.
  return Object.assign(describeColumns(source.statistics, positions, scratch, { _ng_task_index: task }), {
    sample: { agent_ref: { name: source.agent } },
    num_rollouts: count,
    expected_num_rollouts: expected,
    missing_num_rollouts: Math.max(0, expected - count),
    reward_profile_completion_pct: (100 * count) / expected,
    ...(source.rolloutInfos ? { rollout_infos: Array.from(positions, (position) => rolloutInfo(source, position)) } : {}),
  });
}

function rolloutInfo(source: GroupSource, position: number): RolloutInfo {
  const task = source.keys.task(position);
  const rollout = source.keys.rollout(position);
  const info: RolloutInfo = { rollout_id: `${task}:${rollout}`, _ng_task_index: task, _ng_rollout_index: rollout };
  for (const column of source.infos) {
    const value = column.values.get(position);
    if (!Number.isNaN(value)) info[column.name] = value;
  }
  return info;
}

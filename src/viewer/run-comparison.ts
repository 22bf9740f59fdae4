import { z } from 'zod';
import { pairedHistogram, type PairedBin } from './paired-histogram.js';
import { PageWindow, parseQueryParameters } from './query-parameters.js';
import type { RunIndex } from './run-index.js';
import { sortedBy } from './task-page.js';
import { taskTable, type TaskStats } from './task-table.js';

/** One task both runs have. */
export interface ComparedTask {
  task: number;
  rollouts_a: number;
  rollouts_b: number;
  mean_reward_a: number | null;
  mean_reward_b: number | null;
  /** B's mean reward minus A's; null when either run scored none of the task's rollouts. */
  delta: number | null;
}

/** `GET /api/compare/:a/:b`: the tasks matched by task index, a page of them sorted. */
export interface RunComparison {
  a: { id: string; tasks: number };
  b: { id: string; tasks: number };
  /** Tasks both runs have (the rows), and those only one of them has (left out). */
  matched: number;
  only_in_a: number;
  only_in_b: number;
  /** Over the matched tasks: the mean of A's and B's per-task mean reward, and of the deltas. */
  mean_reward_a: number | null;
  mean_reward_b: number | null;
  mean_delta: number | null;
  /** Per-task mean reward of the matched tasks, A's and B's counted in the same bins. */
  distribution: PairedBin[];
  sort: CompareQuery['sort'];
  offset: number;
  items: ComparedTask[];
}

const COMPARE_SORT_KEYS = ['task', 'mean_reward_a', 'mean_reward_b', 'delta'] as const;

/** By default the tasks B lost most on first. */
export const CompareQuery = PageWindow.extend({
  sort: z.enum(COMPARE_SORT_KEYS.flatMap((key) => [key, `-${key}`] as const)).default('delta'),
});
export type CompareQuery = z.infer<typeof CompareQuery>;

export const parseCompareQuery = (search: URLSearchParams): CompareQuery => parseQueryParameters(CompareQuery, search);

/** Two runs' tasks matched by task index (the same dataset's row), from each run's task table. */
export function compareRuns(a: RunIndex, b: RunIndex, query: CompareQuery): RunComparison {
  const tasksA = taskTable(a);
  const byTask = new Map(taskTable(b).map((stats) => [stats.task, stats]));
  const matched: ComparedTask[] = [];
  for (const stats of tasksA) {
    const other = byTask.get(stats.task);
    if (other) matched.push(compared(stats, other));
  }
  const meanOf = (values: (number | null)[]) => mean(values.filter((value): value is number => value !== null));
  const rewardsA = matched.map((task) => task.mean_reward_a).filter((value): value is number => value !== null);
  const rewardsB = matched.map((task) => task.mean_reward_b).filter((value): value is number => value !== null);
  const sorted = sortedBy(matched, query.sort, (task, key) => task[key as (typeof COMPARE_SORT_KEYS)[number]]);
  return {
    a: { id: a.files.id, tasks: tasksA.length },
    b: { id: b.files.id, tasks: byTask.size },
    matched: matched.length,
    only_in_a: tasksA.length - matched.length,
    only_in_b: byTask.size - matched.length,
    mean_reward_a: mean(rewardsA),
    mean_reward_b: mean(rewardsB),
    mean_delta: meanOf(matched.map((task) => task.delta)),
    distribution: pairedHistogram(rewardsA, rewardsB),
    sort: query.sort,
    offset: query.offset,
    items: sorted.slice(query.offset, query.offset + query.limit),
  };
}

function compared(a: TaskStats, b: TaskStats): ComparedTask {
  return {
    task: a.task,
    rollouts_a: a.rollouts,
    rollouts_b: b.rollouts,
    mean_reward_a: a.mean_reward,
    mean_reward_b: b.mean_reward,
    delta: a.mean_reward === null || b.mean_reward === null ? null : b.mean_reward - a.mean_reward,
  };
}

const mean = (values: readonly number[]) => (values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length);

import { z } from 'zod';
import { PageWindow, parseQueryParameters } from './query-parameters.js';
import type { RunIndex } from './run-index.js';
import { taskTable, type TaskStats } from './task-table.js';

const TASK_SORT_KEYS = ['task', 'rollouts', 'pass_at_k', 'mean_reward', 'reward_variance', 'mean_turns', 'mean_tokens', 'failures'] as const;
type TaskSortKey = (typeof TASK_SORT_KEYS)[number];

/** The query string of `GET /api/runs/:run/tasks`: by default the tasks with the most reward variance (the most GRPO signal) first. */
export const TaskQuery = PageWindow.extend({
  sort: z.enum(TASK_SORT_KEYS.flatMap((key) => [key, `-${key}`] as const)).default('-reward_variance'),
});
export type TaskQuery = z.infer<typeof TaskQuery>;

/** A page of a run's tasks, sorted. */
export interface TaskPage {
  total: number;
  offset: number;
  sort: TaskQuery['sort'];
  items: TaskStats[];
}

export const parseTaskQuery = (search: URLSearchParams): TaskQuery => parseQueryParameters(TaskQuery, search);

export function taskPage(index: RunIndex, query: TaskQuery): TaskPage {
  const tasks = sortedBy([...taskTable(index)], query.sort, (stats, key) => stats[key as TaskSortKey]);
  return { total: tasks.length, offset: query.offset, sort: query.sort, items: tasks.slice(query.offset, query.offset + query.limit) };
}

/**
 * Sorts items with a `task` in place by `sort` (a key, `-key` for descending); a null value goes last
 * either way, and ties keep task order.
 */
export function sortedBy<T extends { task: number }>(items: T[], sort: string, value: (item: T, key: string) => number | null): T[] {
  const descending = sort.startsWith('-');
  const key = descending ? sort.slice(1) : sort;
  const sign = descending ? -1 : 1;
  return items.sort((a, b) => {
    const x = value(a, key);
    const y = value(b, key);
    if (x === null || y === null) return x === y ? a.task - b.task : x === null ? 1 : -1;
    return sign * (x - y) || a.task - b.task;
  });
}

import { taskPassAtK } from '../metrics/pass-at-k.js';
import { sortRollouts } from './rollout-query.js';
import type { RunIndex } from './run-index.js';

/** One task of a run: what GRPO sees of its group. */
export interface TaskStats {
  task: number;
  /** Every rollout of the task: successes and failures. */
  rollouts: number;
  /** Successes with a reward (a failure has none, nor has a prompt that never reached the model). */
  scored: number;
  failures: number;
  /** pass@k with k = `scored`, by the metrics' rule (unbiased estimator on 0/1 rewards, else the best reward); a fraction; null when none is scored. */
  pass_at_k: number | null;
  /** Over the scored rollouts; null when none is. */
  mean_reward: number | null;
  /** Population variance (divided by n, not n − 1) of the scored rewards: 0 means no GRPO advantage, so no signal. */
  reward_variance: number | null;
  /** Over every rollout of the task, failures included. */
  mean_turns: number;
  mean_tokens: number;
}

const cache = new WeakMap<RunIndex, { version: number; tasks: TaskStats[] }>();

/**
 * Every task of a run in task order, from the index's columns (no row is read again); computed once
 * per index version, so paging and sorting a run of many tasks costs no second pass.
 */
export function taskTable(index: RunIndex): TaskStats[] {
  const cached = cache.get(index);
  if (cached?.version === index.version) return cached.tasks;
  const tasks = computeTasks(index);
  cache.set(index, { version: index.version, tasks });
  return tasks;
}

function computeTasks(index: RunIndex): TaskStats[] {
  const columns = index.columns;
  const all = new Uint32Array(columns.length);
  for (let at = 0; at < all.length; at++) all[at] = at;
  // Task, then rollout order: pass@k reads a task's rewards as the metrics do.
  const ordered = sortRollouts(columns, all, undefined);
  const tasks: TaskStats[] = [];
  for (let start = 0; start < ordered.length; ) {
    const task = columns.task.values[ordered[start]!]!;
    let end = start;
    while (end < ordered.length && columns.task.values[ordered[end]!] === task) end += 1;
    tasks.push(taskStats(index, task, ordered.subarray(start, end)));
    start = end;
  }
  return tasks;
}

function taskStats(index: RunIndex, task: number, positions: Uint32Array): TaskStats {
  const columns = index.columns;
  const rewards: number[] = [];
  let failures = 0;
  let turns = 0;
  let tokens = 0;
  for (const at of positions) {
    const reward = columns.reward.values[at]!;
    if (columns.isFailure(at)) failures += 1;
    else if (!Number.isNaN(reward)) rewards.push(reward);
    turns += columns.turns.values[at]!;
    tokens += columns.tokens.values[at]!;
  }
  const mean = rewards.length === 0 ? null : rewards.reduce((sum, reward) => sum + reward, 0) / rewards.length;
  return {
    task,
    rollouts: positions.length,
    scored: rewards.length,
    failures,
    pass_at_k: passAtN(rewards),
    mean_reward: mean,
    reward_variance: mean === null ? null : rewards.reduce((sum, reward) => sum + (reward - mean) ** 2, 0) / rewards.length,
    mean_turns: turns / positions.length,
    mean_tokens: tokens / positions.length,
  };
}

/** pass@n of one task's n rewards (in rollout order), by the metrics' own rule. */
const passAtN = (rewards: readonly number[]): number | null => (rewards.length === 0 ? null : taskPassAtK(rewards, rewards.length));

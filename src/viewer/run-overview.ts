import { PassAtKAccumulator } from '../metrics/pass-at-k.js';
import type { HistogramBin } from './histogram.js';
import { histogram } from './histogram.js';
import type { RolloutColumns } from './rollout-columns.js';
import type { HealthOverview } from './health-report.js';
import type { IndexingProgress, RunIndex } from './run-index.js';

/** `GET /api/runs` entry. */
export interface RunSummary {
  id: string;
  file: string;
  agents: string[];
  rollouts: number;
  failures: number;
  mean_reward: number | null;
  version: number;
  /** The first pass over the files: until `done`, every count is of the rollouts indexed so far. */
  indexing: IndexingProgress;
}

/** `GET /api/runs/:run/overview`. */
export interface RunOverview {
  id: string;
  file: string;
  agents: string[];
  model: string | null;
  /** `prompt_too_long`: successes whose prompt never reached the model, out of the mean reward, pass@k and the reward histogram. */
  counts: { rollouts: number; failures: number; tasks: number; prompt_too_long: number };
  mean_reward: number | null;
  pass_at_k: { k: number; value: number }[];
  reward_histogram: HistogramBin[];
  terminations: Record<string, number>;
  failure_classes: Record<string, number>;
  turns_histogram: HistogramBin[];
  tokens_histogram: HistogramBin[];
  drift: { rollouts: number; total: number };
  /** Rollouts with turns whose prompt the server did not return, and those turns: not checked for drift. */
  drift_unchecked: { rollouts: number; total: number };
  version: number;
  indexing: IndexingProgress;
  /** Lines that are not rows, skipped: their count and the first one's error. */
  skipped_lines: { count: number; first: string | null };
  /** `<stem>_health.json`'s rollout verdicts and findings per check; null when `gymnast health` has not checked the run. */
  health: HealthOverview | null;
}

export function runSummary(index: RunIndex): RunSummary {
  const columns = index.columns;
  return {
    id: index.files.id,
    file: index.files.output,
    agents: [...columns.agents.names],
    rollouts: columns.count('output'),
    failures: columns.count('failures'),
    mean_reward: meanReward(columns),
    version: index.version,
    indexing: { ...index.indexing },
  };
}

/** The overview of a run; `model` is the run's when its rows do not name one. */
export function runOverview(index: RunIndex, fallbackModel: string | null = null): RunOverview {
  const columns = index.columns;
  const all = range(columns.length);
  const successes = all.filter((at) => !columns.isFailure(at));
  const scored = successes.filter((at) => !Number.isNaN(columns.reward.values[at]!));
  return {
    ...runSummary(index),
    model: index.model ?? fallbackModel,
    counts: {
      rollouts: columns.count('output'),
      failures: columns.count('failures'),
      tasks: new Set(columns.task.values.subarray(0, columns.length)).size,
      prompt_too_long: successes.length - scored.length,
    },
    pass_at_k: passAtK(columns, scored),
    reward_histogram: histogram(columns.reward.values, scored, 10),
    terminations: tally(all, (at) => columns.terminations.names[columns.termination.values[at]!]!),
    failure_classes: tally(
      all.filter((at) => columns.isFailure(at)),
      (at) => columns.failureClassOf(at) ?? 'unknown',
    ),
    turns_histogram: histogram(columns.turns.values, all),
    tokens_histogram: histogram(columns.tokens.values, all),
    drift: counted(all, columns.drift.values),
    drift_unchecked: counted(all, columns.driftUnchecked.values),
    skipped_lines: { ...index.skipped },
    health: index.health?.overview ?? null,
  };
}

/** Over the scored successes: a failure has no reward, nor has a prompt that never reached the model. */
function meanReward(columns: RolloutColumns): number | null {
  let sum = 0;
  let count = 0;
  for (let at = 0; at < columns.length; at++) {
    const reward = columns.reward.values[at]!;
    if (columns.isFailure(at) || Number.isNaN(reward)) continue;
    sum += reward;
    count += 1;
  }
  return count === 0 ? null : sum / count;
}

/**
 * pass@k for k = 1 … the most rollouts a task has, over scored successful rollouts, by the metrics' own rule
 * (the unbiased estimator where rewards are 0 or 1, else the best of the first k); a fraction, not a percentage.
 */
function passAtK(columns: RolloutColumns, scored: number[]): { k: number; value: number }[] {
  const tasks = columns.task.values;
  const rollouts = columns.rollout.values;
  const ordered = [...scored].sort((a, b) => tasks[a]! - tasks[b]! || rollouts[a]! - rollouts[b]!);
  const accumulator = new PassAtKAccumulator(['reward']);
  for (let start = 0; start < ordered.length; ) {
    let end = start;
    while (end < ordered.length && tasks[ordered[end]!] === tasks[ordered[start]!]) end += 1;
    accumulator.addTask([Float64Array.from(ordered.slice(start, end), (at) => columns.reward.values[at]!)]);
    start = end;
  }
  const metrics = accumulator.metrics();
  const result: { k: number; value: number }[] = [];
  for (let k = 1; `pass@${k}/reward` in metrics; k++) result.push({ k, value: metrics[`pass@${k}/reward`]! / 100 });
  return result;
}

/** How many of `positions` have a count above 0, and the counts' sum. */
function counted(positions: number[], counts: Uint32Array): { rollouts: number; total: number } {
  return { rollouts: positions.filter((at) => counts[at]! > 0).length, total: positions.reduce((sum, at) => sum + counts[at]!, 0) };
}

function tally(positions: number[], name: (at: number) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const at of positions) counts[name(at)] = (counts[name(at)] ?? 0) + 1;
  return counts;
}

const range = (length: number) => Array.from({ length }, (_, at) => at);

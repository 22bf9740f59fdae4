import { columnStatistics } from './column-statistics.js';
import { passMajorityMetrics, type ScoredRollout } from './pass-at-k.js';

/** A result row as NeMo Gym writes it: its numeric top-level fields and `response.usage` are what get aggregated. */
export type ResultRow = Readonly<Record<string, unknown>>;

export interface GroupLevelMetrics {
  _ng_task_index: number;
  [metric: string]: unknown;
}

/** NeMo Gym's `AggregateMetrics` for one agent, key names and layout included. */
export interface AggregateMetrics {
  agent_ref: { name: string };
  agent_metrics: Record<string, number>;
  key_metrics: Record<string, number>;
  group_level_metrics: GroupLevelMetrics[];
}

export interface AggregateOptions {
  agent: string;
  /** How many rollouts each task was planned to have (from the materialized inputs), for completion figures. */
  expectedRollouts?: Pick<ReadonlyMap<number, number>, 'get'>;
  /** A top-level field holding the extracted answer (e.g. `extracted_answer`): adds majority@k and no_answer. */
  answerKey?: string;
}

const USAGE_FIELDS = ['input_tokens', 'output_tokens', 'total_tokens'] as const;

const taskIndex = (row: ResultRow) => (typeof row._ng_task_index === 'number' ? row._ng_task_index : 0);
const rolloutIndex = (row: ResultRow) => (typeof row._ng_rollout_index === 'number' ? row._ng_rollout_index : 0);

/** Every numeric (or boolean, as 0/1) top-level field not starting with `_`, then the numbers of `response.usage`. */
export function numericFields(row: ResultRow): Map<string, number> {
  const fields = new Map<string, number>();
  for (const [key, value] of Object.entries(row)) {
    if (key.startsWith('_')) continue;
    if (typeof value === 'number') fields.set(key, value);
    else if (typeof value === 'boolean') fields.set(key, value ? 1 : 0);
  }
  const usage = (row.response as { usage?: Record<string, unknown> } | undefined)?.usage;
  for (const field of USAGE_FIELDS) if (typeof usage?.[field] === 'number') fields.set(field, usage[field] as number);
  return fields;
}

/**
 * NeMo Gym's aggregate metrics over successful rollouts of one agent: per-task group statistics with
 * completion figures and rollout infos, agent-wide statistics, pass@k / mean@k (and majority@k with
 * an answer key) on the reward, and key metrics (every `mean/*` plus the highest-k pass metrics).
 */
export function aggregateMetrics(rows: readonly ResultRow[], options: AggregateOptions): AggregateMetrics {
  const sorted = [...rows].sort((a, b) => taskIndex(a) - taskIndex(b) || rolloutIndex(a) - rolloutIndex(b));
  const tasks = groupByTask(sorted);
  const agentMetrics = {
    ...columnStatistics(sorted.map(numericFields)),
    ...passMajorityMetrics(
      [...tasks.values()].map((group) => group.map((row): ScoredRollout => ({ scores: { accuracy: Number(row.reward ?? 0) }, ...(options.answerKey ? { answer: answerOf(row, options.answerKey) } : {}) }))),
      { withAnswers: options.answerKey !== undefined },
    ),
  };
  return {
    agent_ref: { name: options.agent },
    agent_metrics: agentMetrics,
    key_metrics: keyMetrics(agentMetrics),
    group_level_metrics: [...tasks.entries()].map(([index, group]) => groupMetrics(index, group, options)),
  };
}

function groupByTask(rows: readonly ResultRow[]): Map<number, ResultRow[]> {
  const tasks = new Map<number, ResultRow[]>();
  for (const row of rows) tasks.set(taskIndex(row), [...(tasks.get(taskIndex(row)) ?? []), row]);
  return tasks;
}

function groupMetrics(index: number, rows: readonly ResultRow[], options: AggregateOptions): GroupLevelMetrics {
  const expected = options.expectedRollouts?.get(index) ?? rows.length;
  return {
    _ng_task_index: index,
    ...columnStatistics(rows.map(numericFields)),
    sample: { agent_ref: { name: options.agent } },
    num_rollouts: rows.length,
    expected_num_rollouts: expected,
    missing_num_rollouts: Math.max(0, expected - rows.length),
    reward_profile_completion_pct: expected === 0 ? 100 : (100 * rows.length) / expected,
    rollout_infos: rows.map((row) => {
      const fields = numericFields(row);
      const { reward, ...rest } = Object.fromEntries(fields);
      const usage = Object.fromEntries(USAGE_FIELDS.filter((field) => fields.has(field)).map((field) => [field, fields.get(field)]));
      const others = Object.fromEntries(Object.entries(rest).filter(([key]) => !(USAGE_FIELDS as readonly string[]).includes(key)));
      return { rollout_id: `${index}:${rolloutIndex(row)}`, _ng_task_index: index, _ng_rollout_index: rolloutIndex(row), reward, ...usage, ...others };
    }),
  };
}

function answerOf(row: ResultRow, key: string): string | null {
  const value = row[key];
  return value === undefined || value === null ? null : String(value);
}

/** Every `mean/*`, plus the pass@k, mean@k and majority@k entries at the largest k (not their std suffixes). */
function keyMetrics(agentMetrics: Record<string, number>): Record<string, number> {
  const entries = Object.entries(agentMetrics);
  const highestK = (prefix: RegExp) => {
    const ks = entries.map(([key]) => prefix.exec(key)?.[1]).filter((k): k is string => k !== undefined).map(Number);
    return ks.length === 0 ? undefined : Math.max(...ks);
  };
  const passK = highestK(/^pass@(\d+)\//);
  const avgK = highestK(/^pass@1\[avg-of-(\d+)\]\//);
  const majorityK = highestK(/^majority@(\d+)\//);
  return Object.fromEntries(
    entries.filter(([key]) =>
      key.startsWith('mean/') ||
      (!key.includes('/std_') && (key.startsWith(`pass@${passK}/`) || key.startsWith(`pass@1[avg-of-${avgK}]/`) || key.startsWith(`majority@${majorityK}/`))),
    ),
  );
}

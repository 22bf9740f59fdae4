import { z } from 'zod';
import { parseQueryParameters } from './query-parameters.js';
import type { RolloutColumns } from './rollout-columns.js';
import { ROLLOUT_HEALTH_VERDICTS, rolloutHealthAt, type RolloutHealthVerdict, type HealthReport } from './health-report.js';

const SORT_KEYS = ['reward', 'tokens', 'turns', 'task', 'duration'] as const;
const SORTS = SORT_KEYS.flatMap((key) => [key, `-${key}`] as const);

const count = (max: number) => z.coerce.number().int().min(0).max(max);
const number = z.coerce.number().refine((value) => Number.isFinite(value), 'expected a finite number');

/** The query string of `GET /api/runs/:run/rollouts`, checked: a bad value names its parameter. */
export const RolloutQuery = z.object({
  offset: count(2 ** 32).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  sort: z.enum(SORTS).optional(),
  termination: z.string().min(1).optional(),
  agent: z.string().min(1).optional(),
  task: count(2 ** 32).optional(),
  /** A failure class, `any` for every failure, or `none` for successes only. */
  failure: z.string().min(1).optional(),
  /** `1`: only rollouts with token drift; `0`: only those without. */
  drift: z.enum(['0', '1']).optional(),
  /** The health report's verdict; with no report, nothing matches (nothing is known healthy). */
  health: z.enum(ROLLOUT_HEALTH_VERDICTS as [RolloutHealthVerdict, ...RolloutHealthVerdict[]]).optional(),
  min_reward: number.optional(),
  max_reward: number.optional(),
  /** Text to find in a rollout's line (its messages, mostly). */
  q: z.string().min(1).max(1000).optional(),
});
export type RolloutQuery = z.infer<typeof RolloutQuery>;

export { BadQueryError } from './bad-query-error.js';

/** Parses a query string; empty values count as absent (`?termination=` filters nothing). */
export const parseRolloutQuery = (search: URLSearchParams): RolloutQuery => parseQueryParameters(RolloutQuery, search);

/** The positions that pass every filter of `query` but the text search, in index order. */
export function filterRollouts(columns: RolloutColumns, query: RolloutQuery, health: HealthReport | null = null): Uint32Array {
  const keep = compileFilters(columns, query, health);
  const positions = new Uint32Array(columns.length);
  let kept = 0;
  for (let at = 0; at < columns.length; at++) if (keep.every((test) => test(at))) positions[kept++] = at;
  return positions.subarray(0, kept);
}

type Test = (at: number) => boolean;

function compileFilters(columns: RolloutColumns, query: RolloutQuery, health: HealthReport | null): Test[] {
  const tests: Test[] = [];
  const never: Test = () => false;
  if (query.termination !== undefined) tests.push(equalsName(columns.termination.values, columns.terminations.find(query.termination)) ?? never);
  if (query.agent !== undefined) tests.push(equalsName(columns.agent.values, columns.agents.find(query.agent)) ?? never);
  if (query.task !== undefined) tests.push((at) => columns.task.values[at] === query.task);
  if (query.failure === 'any') tests.push((at) => columns.isFailure(at));
  else if (query.failure === 'none') tests.push((at) => !columns.isFailure(at));
  else if (query.failure !== undefined) tests.push((at) => columns.failureClassOf(at) === query.failure);
  if (query.drift !== undefined) tests.push((at) => columns.drift.values[at]! > 0 === (query.drift === '1'));
  // NaN (a failure) fails both comparisons: a reward bound keeps successes only.
  if (query.min_reward !== undefined) tests.push((at) => columns.reward.values[at]! >= query.min_reward!);
  if (query.max_reward !== undefined) tests.push((at) => columns.reward.values[at]! <= query.max_reward!);
  if (query.health !== undefined) tests.push(health ? (at) => rolloutHealthAt(health, columns, at).verdict === query.health : never);
  return tests;
}

function equalsName(values: Uint16Array, id: number | undefined): Test | undefined {
  return id === undefined ? undefined : (at) => values[at] === id;
}

/**
 * Sorts positions in place by `sort` (`-` for descending); ties keep task, then rollout order. Failures'
 * NaN rewards and unknown durations go last either way.
 */
export function sortRollouts(columns: RolloutColumns, positions: Uint32Array, sort: RolloutQuery['sort']): Uint32Array {
  const tasks = columns.task.values;
  const rollouts = columns.rollout.values;
  const byKey = (a: number, b: number) => tasks[a]! - tasks[b]! || rollouts[a]! - rollouts[b]! || a - b;
  if (sort === undefined) return positions.sort(byKey);
  const descending = sort.startsWith('-');
  const values = keyValues(columns, descending ? sort.slice(1) : sort);
  const sign = descending ? -1 : 1;
  return positions.sort((a, b) => {
    const x = values[a]!;
    const y = values[b]!;
    if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) === Number.isNaN(y) ? byKey(a, b) : Number.isNaN(x) ? 1 : -1;
    return sign * (x - y) || byKey(a, b);
  });
}

function keyValues(columns: RolloutColumns, key: string): ArrayLike<number> {
  switch (key) {
    case 'reward':
      return columns.reward.values;
    case 'tokens':
      return columns.tokens.values;
    case 'turns':
      return columns.turns.values;
    case 'duration':
      return columns.duration.values;
    default:
      return columns.task.values;
  }
}

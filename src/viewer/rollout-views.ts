import type { TokenDecoder } from '../core/token-decoder.js';
import type { Message } from '../core/message.js';
import { readFullRow, type ReadFullRow } from '../core/row-reader.js';
import type { TurnRecord } from '../core/turn-record.js';
import { expectedAnswer, type ExpectedAnswer } from './expected-answer.js';
import { groupStatistics, type GroupStatistics } from './group-statistics.js';
import { filterRollouts, sortRollouts, type RolloutQuery } from './rollout-query.js';
import { rolloutHealthAt, type RolloutHealth, type RolloutHealthVerdict } from './health-report.js';
import type { RunIndex } from './run-index.js';
import { RunSearch } from './run-search.js';

/** One rollout in a list. */
export interface RolloutSummary {
  id: string;
  task: number;
  rollout: number;
  agent: string;
  reward: number | null;
  termination: string;
  failure_class: string | null;
  turns: number;
  tokens: number;
  drift: number;
  /** Turns whose prompt the server rendered and did not return: not checked for drift. */
  drift_unchecked: number;
  duration_ms: number | null;
  /** The health report's verdict; null when the run has no report (`gymnast health` has not run on it). */
  health: RolloutHealthVerdict | null;
}

/** A page of rollouts; `partial` when a text search ran out of time before testing every line (ask again to go on). */
export interface RolloutPage {
  total: number;
  offset: number;
  items: RolloutSummary[];
  partial: boolean;
}

/** One token of a rollout's sequence. */
export interface TokenView {
  id: number;
  text: string | null;
  logprob: number | null;
  /** Sampled by the policy: the tokens a trainer's loss mask keeps. */
  trained: boolean;
  message: number;
  role: Message['role'];
}

export interface RolloutDetail {
  summary: RolloutSummary;
  row: ReadFullRow['row'];
  tokens: TokenView[];
  drift_points: number[];
  /** The verdict and what the checks found; null when the run has no health report. */
  health: RolloutHealth | null;
}

export function rolloutSummary(index: RunIndex, at: number): RolloutSummary {
  const columns = index.columns;
  const reward = columns.reward.values[at]!;
  const duration = columns.duration.values[at]!;
  return {
    id: columns.idOf(at),
    task: columns.task.values[at]!,
    rollout: columns.rollout.values[at]!,
    agent: columns.agentOf(at),
    reward: Number.isNaN(reward) ? null : reward,
    termination: columns.terminations.names[columns.termination.values[at]!]!,
    failure_class: columns.failureClassOf(at),
    turns: columns.turns.values[at]!,
    tokens: columns.tokens.values[at]!,
    drift: columns.drift.values[at]!,
    drift_unchecked: columns.driftUnchecked.values[at]!,
    duration_ms: Number.isNaN(duration) ? null : duration,
    health: rolloutHealth(index, at)?.verdict ?? null,
  };
}

function rolloutHealth(index: RunIndex, at: number): RolloutHealth | null {
  return index.health ? rolloutHealthAt(index.health, index.columns, at) : null;
}

/**
 * Filtered and sorted rollouts, computed once per (query, version) and paged from there; a text
 * search (`q`) scans lines for at most `searchBudgetMs` a call and remembers where it stopped.
 */
export class RolloutLister {
  readonly #index: RunIndex;
  readonly #searchBudgetMs: number;
  #cached: { key: string; version: number; positions: Uint32Array } | undefined;
  #search: RunSearch | undefined;

  constructor(index: RunIndex, options: { searchBudgetMs?: number } = {}) {
    this.#index = index;
    this.#searchBudgetMs = options.searchBudgetMs ?? 2000;
  }

  async page(query: RolloutQuery): Promise<RolloutPage> {
    let positions = this.#ordered(query);
    let partial = false;
    if (query.q !== undefined) {
      if (this.#search?.query !== query.q) this.#search = new RunSearch(query.q);
      const search = this.#search;
      partial = !(await search.scan(this.#index, this.#searchBudgetMs));
      positions = positions.filter((at) => search.matches(at));
    }
    const items = Array.from(positions.subarray(query.offset, query.offset + query.limit), (at) => rolloutSummary(this.#index, at));
    return { total: positions.length, offset: query.offset, items, partial };
  }

  #ordered(query: RolloutQuery): Uint32Array {
    const { offset: _offset, limit: _limit, q: _q, ...filters } = query;
    const key = JSON.stringify(filters);
    const version = this.#index.version;
    if (this.#cached?.key !== key || this.#cached.version !== version) {
      const columns = this.#index.columns;
      this.#cached = { key, version, positions: sortRollouts(columns, filterRollouts(columns, query, this.#index.health), query.sort) };
    }
    return this.#cached.positions;
  }
}

/** A whole rollout: its row as `readFullRow` reads it, its token sequence, and the turns that drifted. */
export async function rolloutDetail(index: RunIndex, at: number, decoder?: TokenDecoder): Promise<RolloutDetail> {
  const read = readFullRow(JSON.parse(await index.lineOf(at)), index.whereOf(at));
  const tokens = tokenViews(read.row.messages ?? [], decoder);
  return { summary: rolloutSummary(index, at), row: read.row, tokens, drift_points: driftPoints(read.row.turns ?? []), health: rolloutHealth(index, at) };
}

/** Every token in message order; logprobs where the sampler gave them. */
export function tokenViews(messages: readonly Message[], decoder?: TokenDecoder): TokenView[] {
  return messages.flatMap((message, index) =>
    (message.token_ids ?? []).map((id, position) => ({
      id,
      text: decoder ? decoder.decode([id]) : null,
      logprob: message.generation_logprobs?.[position] ?? null,
      trained: message.generation_logprobs !== undefined,
      message: index,
      role: message.role,
    })),
  );
}

const driftPoints = (turns: readonly TurnRecord[]) => turns.filter((turn) => turn.token_drift !== undefined).map((turn) => turn.index);

/** One rollout of a group: its summary, its GRPO advantage (null for a failure), its messages minus token fields. */
export type GroupItem = RolloutSummary & { advantage: number | null; messages: Omit<Message, 'token_ids' | 'generation_logprobs'>[] };

/** One task's rollouts, what GRPO makes of their rewards, and the answer the task expected. */
export interface TaskGroup {
  items: GroupItem[];
  statistics: GroupStatistics;
  /** From the task's row; null when the rows record none. */
  expected_answer: ExpectedAnswer | null;
}

/** The rollouts of one task in rollout order (successes and failures), with the group's mean, std and advantages. */
export async function taskGroup(index: RunIndex, task: number): Promise<TaskGroup> {
  const columns = index.columns;
  const positions = sortRollouts(columns, filterRollouts(columns, { task, offset: 0, limit: 1 }), undefined);
  const rollouts = [];
  // What the GRPO trainer averages: every success's recorded reward (a prompt that never reached the model included), no failure's.
  const rewards: (number | null)[] = [];
  let expected: ExpectedAnswer | null = null;
  for (const at of positions) {
    const line = JSON.parse(await index.lineOf(at));
    const read = readFullRow(line, index.whereOf(at));
    expected ??= expectedAnswer(line);
    const messages = (read.row.messages ?? []).map(({ token_ids: _ids, generation_logprobs: _logprobs, ...rest }) => rest);
    rollouts.push({ ...rolloutSummary(index, at), messages });
    rewards.push(read.kind === 'result' ? read.row.reward : null);
  }
  const { statistics, advantages } = groupStatistics(rewards);
  return { items: rollouts.map((rollout, i) => ({ ...rollout, advantage: advantages[i]! })), statistics, expected_answer: expected };
}

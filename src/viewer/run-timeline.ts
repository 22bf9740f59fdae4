import { z } from 'zod';
import { readRow } from '../core/row-reader.js';
import { PageWindow, parseQueryParameters } from './query-parameters.js';
import type { RolloutColumns } from './rollout-columns.js';
import { rolloutSummary, type RolloutSummary } from './rollout-views.js';
import type { RunIndex } from './run-index.js';

/**
 * The most rollouts one answer carries (`limit`), and how many it carries unless asked: each is read
 * from its line, so an answer costs a read of that many rows, and the page draws one SVG of that many lanes.
 */
export const MAX_TIMELINE_ROLLOUTS = 5000;
const DEFAULT_TIMELINE_ROLLOUTS = 2000;

/** The query string of `GET /api/runs/:run/timeline`: a window of the run's timed rollouts, in the order they started. */
export const TimelineQuery = PageWindow.extend({
  limit: z.coerce.number().int().min(1).max(MAX_TIMELINE_ROLLOUTS).default(DEFAULT_TIMELINE_ROLLOUTS),
});
export type TimelineQuery = z.infer<typeof TimelineQuery>;

export const parseTimelineQuery = (search: URLSearchParams): TimelineQuery => parseQueryParameters(TimelineQuery, search);

/** One turn on the timeline: when its generation was asked for (ms from the rollout's start), how long it and the environment's step took, and the replica. */
export interface TimelineTurn {
  /** Null in a row that timed its turns but not their starts. */
  start_ms: number | null;
  generation_ms: number;
  env_ms: number;
  /** Null when no server sampled the turn (the embedded model, a scripted policy). */
  server: string | null;
}

/** One rollout on the timeline: its summary's identity, reward and duration, when it started (epoch ms), and its turns. */
export interface TimelineRollout extends Pick<RolloutSummary, 'id' | 'task' | 'rollout' | 'reward' | 'failure_class'> {
  started_at: number;
  duration_ms: RolloutSummary['duration_ms'];
  turns: TimelineTurn[];
}

/** `GET /api/runs/:run/timeline`. */
export interface RunTimeline {
  /** Whether any row records when it started: false for rows of an older gymnast, or of a NeMo Gym agent server. */
  recorded: boolean;
  /** The run's rollouts (successes and failures) indexed so far. */
  rollouts: number;
  /** Those that record `started_at`: the ones a timeline can place. */
  timed: number;
  /** The earliest `started_at` of the run (the axis's zero, the same on every window); null when none is recorded. */
  first_started_at: number | null;
  offset: number;
  limit: number;
  /** Timed rollouts left out of this answer: those that started before its window, and after it. */
  left_out: { before: number; after: number };
  /** The window's rollouts in the order they started. */
  items: TimelineRollout[];
  version: number;
}

/** Rows read at once while an answer is built. */
const READ_BATCH = 64;

/** Each index's timed positions in start order, kept for the version they were sorted at. */
const startOrders = new WeakMap<RunIndex, { version: number; positions: Uint32Array }>();

/**
 * The last answer's rollouts by position, for the columns they were read from: a position's line never
 * changes while the columns last (a run is re-indexed into new ones), so a page refreshed as the run
 * grows reads only the rows new to its window, not the whole window again.
 */
const lastWindows = new WeakMap<RolloutColumns, Map<number, TimelineRollout>>();

/**
 * A window of the run's rollouts as a timeline: when each started and, from its line, each turn's
 * start, generation and environment times and replica. The index keeps each rollout's start (8 bytes);
 * the turns are read from the rows of the window only, so an answer holds at most `limit` rows' turns.
 */
export async function runTimeline(index: RunIndex, query: TimelineQuery): Promise<RunTimeline> {
  const columns = index.columns;
  const positions = startOrder(index);
  const window = positions.subarray(query.offset, query.offset + query.limit);
  const last = lastWindows.get(columns);
  const items: TimelineRollout[] = [];
  for (let from = 0; from < window.length; from += READ_BATCH) {
    const batch = Array.from(window.subarray(from, from + READ_BATCH), (at) => last?.get(at) ?? timelineRollout(index, at));
    items.push(...(await Promise.all(batch)));
  }
  lastWindows.set(columns, new Map(Array.from(window, (at, i) => [at, items[i]!])));
  return {
    recorded: positions.length > 0,
    rollouts: columns.length,
    timed: positions.length,
    first_started_at: positions.length > 0 ? columns.startedAt.values[positions[0]!]! : null,
    offset: query.offset,
    limit: query.limit,
    left_out: { before: Math.min(query.offset, positions.length), after: Math.max(0, positions.length - query.offset - window.length) },
    items,
    version: index.version,
  };
}

/** The positions of rollouts that record their start, earliest first (ties in index order). */
function startOrder(index: RunIndex): Uint32Array {
  const cached = startOrders.get(index);
  // The version changes with the columns too (a re-index), so it alone says whether the order holds.
  if (cached?.version === index.version) return cached.positions;
  const columns = index.columns;
  const started = columns.startedAt.values;
  const timed: number[] = [];
  for (let at = 0; at < columns.length; at++) if (!Number.isNaN(started[at]!)) timed.push(at);
  const positions = Uint32Array.from(timed.sort((a, b) => started[a]! - started[b]! || a - b));
  startOrders.set(index, { version: index.version, positions });
  return positions;
}

async function timelineRollout(index: RunIndex, at: number): Promise<TimelineRollout> {
  const { id, task, rollout, reward, failure_class, duration_ms } = rolloutSummary(index, at);
  const started_at = index.columns.startedAt.values[at]!;
  const { row } = readRow(JSON.parse(await index.lineOf(at)), index.whereOf(at));
  return {
    id,
    task,
    rollout,
    reward,
    failure_class,
    started_at,
    duration_ms,
    turns: (row.turns ?? []).map(({ timing, server }) => ({
      start_ms: timing.start_ms ?? null,
      generation_ms: timing.generation_ms,
      env_ms: timing.env_ms,
      server: server ?? null,
    })),
  };
}

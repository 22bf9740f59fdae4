import type { ReadRow } from '../core/row-reader.js';
import { isZeroTurnRow } from '../core/zero-turn-row.js';
import { sequenceTokens } from '../metrics/sequence-tokens.js';
import type { IndexedRollout, RunFileKind } from './rollout-columns.js';

/** Where a row's line is, as the scanner found it. */
export interface LinePlace {
  file: RunFileKind;
  offset: number;
  length: number;
  line: number;
}

/**
 * What the index keeps of a row read with `readRow`. Tokens are the sequence's length (`sequenceTokens`:
 * what a trainer sees, as the rollout metrics count it), or the usage total for rows from agent
 * servers, which record no turns. A failure without a termination reads as `failed`. A failure, and a
 * success whose prompt never reached the model, have no reward (NaN).
 */
export function indexedRollout(read: ReadRow, place: LinePlace): IndexedRollout {
  const row = read.row;
  const turns = row.turns ?? [];
  const failed = read.kind === 'failure';
  return {
    ...place,
    task: row._ng_task_index,
    rollout: row._ng_rollout_index,
    agent: row.agent_ref.name,
    reward: read.kind === 'result' && !isZeroTurnRow(read.row) ? read.row.reward : Number.NaN,
    termination: row.termination?.kind ?? (failed ? 'failed' : 'unknown'),
    failureClass: read.kind === 'failure' ? read.row._ng_failure_class : null,
    turns: row.num_turns ?? turns.length,
    tokens: row.turns === undefined ? (row.response?.usage?.total_tokens ?? 0) : sequenceTokens(row.messages),
    drift: row.token_drift_count ?? turns.filter((turn) => turn.token_drift !== undefined).length,
    driftUnchecked: row.drift_unchecked ?? turns.filter((turn) => turn.drift_unchecked === true).length,
    evaluationOnly: read.kind === 'result' && read.row.evaluation_only === true,
    durationMs: row.duration_ms ?? Number.NaN,
    startedAt: row.started_at ?? Number.NaN,
  };
}

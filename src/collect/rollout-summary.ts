import { ConfigError } from '../core/errors/config-error.js';
import type { ResultRow } from '../core/result-row.js';
import { readFullRow } from '../core/row-reader.js';
import { jsonRows } from './result-files.js';

/** One rollout's flat facts, as a table export writes them: no messages, no token arrays. */
export interface RolloutSummary {
  _ng_task_index: number;
  _ng_rollout_index: number;
  agent: string;
  /** How the episode ended (`env-done`, `max-turns`, ...); null on rows that do not say (agent servers). */
  termination: string | null;
  reward: number;
  reward_components: Record<string, number>;
  num_turns: number | null;
  truncated: boolean;
  extracted_answer: string | null;
  token_drift_count: number;
  duration_ms: number | null;
}

export function rolloutSummary(row: ResultRow): RolloutSummary {
  return {
    _ng_task_index: row._ng_task_index,
    _ng_rollout_index: row._ng_rollout_index,
    agent: row.agent_ref.name,
    termination: row.termination?.kind ?? null,
    reward: row.reward,
    reward_components: row.reward_components ?? {},
    num_turns: row.num_turns ?? null,
    truncated: row.truncated === true,
    extracted_answer: row.extracted_answer ?? null,
    token_drift_count: row.token_drift_count ?? 0,
    duration_ms: row.duration_ms,
  };
}

/** Every success of a rollouts file, read through the row readers (every schema version); a failure row is refused, as `export --format nemo-rl` does. */
export async function* successRows(input: string, signal?: AbortSignal): AsyncGenerator<{ row: ResultRow; where: string }> {
  for await (const at of jsonRows(input, signal)) {
    const read = readFullRow(at.value, at.where);
    if (read.kind === 'failure') throw new ConfigError(`${at.where}: a failed rollout (${read.row._ng_failure_class}) in a rollouts file`);
    yield { row: read.row, where: at.where };
  }
}

/** The reward component names of a file's rows, sorted: one column each, so a table's header is known before its first row. */
export async function rewardComponentNames(input: string, signal?: AbortSignal): Promise<string[]> {
  const names = new Set<string>();
  for await (const { row } of successRows(input, signal)) for (const name of Object.keys(row.reward_components ?? {})) names.add(name);
  return [...names].sort();
}

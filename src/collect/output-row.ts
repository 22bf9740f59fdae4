import { isDeterministicFailure } from '../core/recorded-error.js';
import { ROLLOUT_SCHEMA_VERSION, RolloutRecord, type EpisodeRecord } from '../core/rollout-record.js';
import { messagesToResponsesItems } from '../tokens/responses-items.js';
import type { MaterializedRow } from './dataset-row.js';

/**
 * A finished episode as a NeMo Gym result row: the materialized input, a Responses-style `response`
 * (output items and usage), `reward`, `terminated`/`truncated`, the stamped keys, and gymnast's exact
 * record (`messages` with token ids and logprobs, `termination`, `turns`). Failures also carry
 * `_ng_failure_class` and the error, and go to the sidecar file.
 */
export function outputRow(row: MaterializedRow, record: EpisodeRecord, openingMessages: number): Record<string, unknown> {
  const inputTokens = record.turns.reduce((total, turn) => total + turn.prompt_tokens, 0);
  const outputTokens = record.turns.reduce((total, turn) => total + turn.generated_tokens, 0);
  const base = {
    ...row,
    response: {
      output: messagesToResponsesItems(record.messages.slice(openingMessages)),
      usage: { input_tokens: inputTokens, output_tokens: outputTokens, total_tokens: inputTokens + outputTokens },
    },
    reward: record.reward,
    ...(Object.keys(record.reward_components).length > 0 ? { reward_components: record.reward_components } : {}),
    ...endFlags(record),
    num_turns: record.turns.length,
    ...extractedAnswer(record),
    token_drift_count: record.token_drift_count,
    has_training_tokens: record.has_training_tokens,
    termination: record.termination,
    messages: record.messages,
    turns: record.turns,
    env_metadata: record.env_metadata,
    sampling: record.sampling,
    _ng_task_index: row._ng_task_index,
    _ng_rollout_index: row._ng_rollout_index,
    agent_ref: row.agent_ref,
  };
  if (record.record_type === 'rollout') return base;
  const { reward: _unearned, ...withoutReward } = base;
  return { ...withoutReward, _ng_failure_class: record.failure_class, ...(isDeterministicFailure(record.error) ? { _ng_failure_terminal: true } : {}), error: record.error };
}

/**
 * NeMo Gym's `terminated` / `truncated`: terminated when the environment said so on the last step;
 * truncated when the environment cut the episode short, or a limit did (sequence, tokens, turns).
 */
function endFlags(record: EpisodeRecord): { terminated: boolean; truncated: boolean } {
  const last = record.turns.at(-1);
  const limit = record.termination.kind === 'max-seq-len' || record.termination.kind === 'max-tokens' || record.termination.kind === 'max-turns';
  return { terminated: last?.env_terminated === true, truncated: last?.env_truncated === true || limit };
}

/** The last answer the environment extracted, as NeMo Gym's `extracted_answer` (absent when the environment reports none). */
function extractedAnswer(record: EpisodeRecord): { extracted_answer?: string | null } {
  const reported = record.turns.filter((turn) => turn.answer !== undefined);
  return reported.length === 0 ? {} : { extracted_answer: reported.at(-1)!.answer ?? null };
}

/** The rollout record inside a result row written by `outputRow` (for metrics computed after the run). */
export function recordFromOutputRow(row: Readonly<Record<string, unknown>>): RolloutRecord {
  return RolloutRecord.parse({
    ...row,
    schema_version: ROLLOUT_SCHEMA_VERSION,
    record_type: 'rollout',
    task_id: String(row._ng_task_index),
    task_index: row._ng_task_index,
    rollout_index: row._ng_rollout_index,
    reward_components: row.reward_components ?? {},
    timing: { duration_ms: 0 },
  });
}

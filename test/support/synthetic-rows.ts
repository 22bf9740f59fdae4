import { ROW_SCHEMA_VERSION } from '../../src/core/index.js';

/** What a synthetic rollout looks like; everything else is filled in as `gymnast collect` writes it. */
export interface SyntheticRollout {
  task: number;
  rollout: number;
  reward?: number;
  agent?: string;
  /** Makes it a failure row (for the `_failures.jsonl` sidecar), with this class. */
  failure?: string;
  /** Words the assistant says (searchable). */
  answer?: string;
  turns?: number;
  /** Turns (0-based) that drifted. */
  drift?: number[];
  /** Turns (0-based) whose prompt the server rendered and did not return. */
  unchecked?: number[];
  /** Sampled by a text-only policy (`--policy openai`): no logprobs, marked evaluation-only. */
  evaluationOnly?: boolean;
  /** Tokens per message: rows of realistic size have about a hundred. */
  tokensPerMessage?: number;
  durationMs?: number;
  /** `started_at` (epoch ms): with it each turn records its `start_ms` too (3 ms apart). */
  startedAt?: number;
  /** The replica that sampled every turn (`turns[i].server`). */
  server?: string;
}

/** One row as `gymnast collect` writes it (schema version 3), messages with token ids and logprobs (no model call on response.output holds them). */
export function syntheticRow(spec: SyntheticRollout): Record<string, unknown> {
  const turns = spec.turns ?? 1;
  const size = spec.tokensPerMessage ?? 8;
  const ids = (seed: number) => Array.from({ length: size }, (_, i) => (seed * 31 + i * 7) % 151);
  const messages: Record<string, unknown>[] = [{ role: 'user', content: `what is ${spec.task}+${spec.task}?`, token_ids: ids(spec.task) }];
  const turnRecords = [];
  for (let turn = 0; turn < turns; turn++) {
    const logprobs = spec.evaluationOnly ? {} : { generation_logprobs: ids(turn + 1).map((id) => -id / 1000) };
    messages.push({ role: 'assistant', content: spec.answer ?? `${spec.task * 2}`, token_ids: ids(turn + 1), ...logprobs });
    messages.push({ role: 'environment', content: 'correct', token_ids: ids(turn + 2) });
    turnRecords.push({
      index: turn,
      prompt_tokens: size * (1 + 2 * turn),
      generated_tokens: size,
      env_tokens: size,
      finish_reason: { unified: 'stop', raw: 'stop' },
      reward: spec.reward ?? 0,
      observation_truncated: false,
      ...(spec.drift?.includes(turn) ? { token_drift: { source: 'template', at: 3, ledger: 'a', template: 'b' } } : {}),
      ...(spec.unchecked?.includes(turn) ? { drift_unchecked: true } : {}),
      ...(spec.server === undefined ? {} : { server: spec.server }),
      timing: spec.startedAt === undefined ? { generation_ms: 1, env_ms: 1 } : { start_ms: 3 * turn, generation_ms: 1, env_ms: 1 },
    });
  }
  const base = {
    responses_create_params: { input: [{ role: 'user', content: `what is ${spec.task}+${spec.task}?` }] },
    agent_ref: { name: spec.agent ?? 'arithmetic', type: 'responses_api_agents' },
    _ng_task_index: spec.task,
    _ng_rollout_index: spec.rollout,
    schema_version: ROW_SCHEMA_VERSION,
    duration_ms: spec.durationMs ?? 10 + spec.rollout,
    ...(spec.startedAt === undefined ? {} : { started_at: spec.startedAt }),
    num_turns: turns,
    token_drift_count: spec.drift?.length ?? 0,
    ...(spec.unchecked?.length ? { drift_unchecked: spec.unchecked.length } : {}),
    ...(spec.evaluationOnly ? { has_training_tokens: false, evaluation_only: true } : {}),
    messages,
    turns: turnRecords,
  };
  if (spec.failure !== undefined) {
    return {
      ...base,
      termination: { kind: 'policy-error' },
      _ng_failure_class: spec.failure,
      error: { kind: 'policy', name: 'PolicyError', message: 'the server broke' },
    };
  }
  return { ...base, response: { output: [] }, terminated: true, truncated: false, termination: { kind: 'env-done' }, reward: spec.reward ?? 0 };
}

export const toLines = (rows: readonly Record<string, unknown>[]) => rows.map((row) => `${JSON.stringify(row)}\n`).join('');

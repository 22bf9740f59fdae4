import { hasKind, type ErrorKind } from '../core/errors/has-kind.js';
import { ReportedFailureError } from '../core/errors/reported-failure-error.js';
import type { Message } from '../core/message.js';
import { recordError } from '../core/recorded-error.js';
import type { FailureClass } from '../core/failure-class.js';
import { ROLLOUT_SCHEMA_VERSION, type FailureRecord, type RolloutRecord } from '../core/rollout-record.js';
import type { SuccessfulTermination } from '../core/termination.js';
import type { TurnRecord } from '../core/turn-record.js';
import type { AppliedObservation } from './apply-observation.js';
import type { EpisodeState } from './episode-state.js';
import type { Generation } from './generation.js';
import { generatedTokens } from './generated-tokens.js';
import type { Step } from './step-environment.js';
import { elapsedMs } from '../util/clock.js';
import { extensibleCopy } from '../util/extensible-copy.js';

type FailedTermination = FailureRecord['termination'];

/** The keys rollout and failure records share, reduced from the episode's facts. */
function commonKeys(state: EpisodeState, finishedAt: number, recorded: RecordedMetadata, reported: Readonly<Record<string, unknown>> = {}) {
  const duration_ms = elapsedMs(state.startedAt, finishedAt);
  const reward_components: Record<string, number> = {};
  for (const turn of state.turns) {
    for (const [name, value] of Object.entries(turn.reward_components ?? {})) {
      reward_components[name] = (reward_components[name] ?? 0) + value;
    }
  }
  return {
    schema_version: ROLLOUT_SCHEMA_VERSION,
    ...state.key,
    messages: withToolCalls(state),
    reward: state.turns.reduce((total, turn) => total + turn.reward, 0),
    reward_components,
    turns: state.turns,
    has_training_tokens: state.messages.every((message) => message.role !== 'assistant' || message.generation_logprobs !== undefined),
    ...(hasTextOnlyTurn(state) ? { evaluation_only: true as const } : {}),
    token_drift_count: state.turns.filter((turn) => turn.token_drift !== undefined).length,
    ...driftUnchecked(state),
    env_metadata: state.metadata === undefined || state.metadata === null ? null : recorded(state.metadata),
    ...(state.terminalMetadata === undefined ? {} : { terminal_env_metadata: recorded(state.terminalMetadata) }),
    ...envFields({ ...state.fields, ...reported }),
    sampling: state.sampling,
    timing: state.startedAtEpochMs === undefined ? { duration_ms } : { duration_ms, started_at: state.startedAtEpochMs },
  };
}

/** Counted on rollouts whose prompts a server rendered (0 when each was checked); absent otherwise, so token-in records are unchanged. */
function driftUnchecked(state: EpisodeState): { drift_unchecked?: number } {
  if (!state.turns.some((turn) => turn.drift_unchecked !== undefined)) return {};
  return { drift_unchecked: state.turns.filter((turn) => turn.drift_unchecked === true).length };
}

/**
 * A sampled turn without logprobs came from a text-only backend. The sampled turns are the last
 * assistant messages, one per turn; earlier ones came with the prompt.
 */
function hasTextOnlyTurn(state: EpisodeState): boolean {
  const assistants = state.messages.filter((message) => message.role === 'assistant');
  return assistants.slice(assistants.length - state.turns.length).some((message) => message.generation_logprobs === undefined);
}

/** The log with the tool calls environments read shown on the sampled messages they came from. */
function withToolCalls(state: EpisodeState): Message[] {
  const { toolCalls } = state;
  // The log itself: it is never changed in place (a new array per append), so the record may own it.
  if (toolCalls === undefined) return state.messages as Message[];
  return state.messages.map((message, i) => {
    const calls = toolCalls.get(i);
    return calls ? extensibleCopy(message, { tool_calls: calls }) : message;
  });
}

/** Absent when the environment reported nothing, so records of environments that never do are unchanged. */
function envFields(fields: Record<string, unknown>): { env_fields?: Record<string, unknown> } {
  return Object.keys(fields).length === 0 ? {} : { env_fields: fields };
}

/** What happened in one turn, from the facts its steps returned. */
export function turnRecord(index: number, generation: Generation, step: Step, observation: AppliedObservation): TurnRecord {
  const { result } = generation;
  const drift = generation.drift ?? observation.drift;
  return {
    index,
    prompt_tokens: generation.promptTokens,
    generated_tokens: generatedTokens(result),
    env_tokens: observation.envTokens,
    finish_reason: result.finish_reason,
    ...(result.logprobs_mode ? { logprobs_mode: result.logprobs_mode } : {}),
    ...(result.policy_version === undefined ? {} : { policy_version: result.policy_version }),
    ...(result.server === undefined ? {} : { server: result.server }),
    reward: step.result.reward,
    ...(step.result.reward_components ? { reward_components: step.result.reward_components } : {}),
    ...(step.result.answer !== undefined ? { answer: step.result.answer } : {}),
    env_terminated: step.result.terminated,
    env_truncated: step.result.truncated,
    ...(result.finish_reason.unified === 'length' ? { generation_cut: generation.filledSequence ? ('max-seq-len' as const) : ('max-tokens' as const) } : {}),
    observation_truncated: observation.truncated,
    ...(observation.maxSeqLenReached ? { max_seq_len_reached: true as const } : {}),
    ...(drift ? { token_drift: drift } : {}),
    ...(generation.driftUnchecked === undefined ? {} : { drift_unchecked: generation.driftUnchecked }),
    timing: { start_ms: generation.startMs, generation_ms: generation.ms, env_ms: step.ms },
  };
}

/** What of the episode's metadata its record keeps (the environment's `recordedMetadata`, else all of it). */
export type RecordedMetadata = (metadata: unknown) => unknown;

export function rolloutRecord(state: EpisodeState, termination: SuccessfulTermination, finishedAt: number, recorded: RecordedMetadata): RolloutRecord {
  return { record_type: 'rollout', ...commonKeys(state, finishedAt, recorded), termination };
}

/** Classifies why an episode failed; errors of no known kind are bugs and are rethrown. */
export function failureRecord(state: EpisodeState, error: unknown, signal: AbortSignal, finishedAt: number, recorded: RecordedMetadata): FailureRecord {
  const { failureClass, termination, cause } = classifyFailure(error, signal);
  return {
    record_type: 'failure',
    ...commonKeys(state, finishedAt, recorded, ReportedFailureError.fieldsOf(cause)),
    termination,
    failure_class: failureClass,
    error: recordError(cause),
  };
}

/** The failure class and termination of each error kind an episode may fail with. */
const failuresByKind: ReadonlyMap<ErrorKind, { failureClass: FailureClass; termination: FailedTermination['kind'] }> = new Map([
  ['aborted', { failureClass: 'aborted', termination: 'aborted' }],
  ['token-alignment', { failureClass: 'token-alignment', termination: 'policy-error' }],
  ['template', { failureClass: 'template-error', termination: 'policy-error' }],
  ['environment', { failureClass: 'env-error', termination: 'env-error' }],
  ['reward-components', { failureClass: 'env-error', termination: 'env-error' }],
  ['transport', { failureClass: 'transport', termination: 'policy-error' }],
  ['timeout', { failureClass: 'timeout', termination: 'policy-error' }],
  ['policy', { failureClass: 'policy-error', termination: 'policy-error' }],
  ['server', { failureClass: 'policy-error', termination: 'policy-error' }],
  ['context-length', { failureClass: 'policy-error', termination: 'policy-error' }],
  ['sampler-reply', { failureClass: 'policy-error', termination: 'policy-error' }],
]);

function classifyFailure(error: unknown, signal: AbortSignal): { failureClass: FailureClass; termination: FailedTermination; cause: unknown } {
  if (signal.aborted) {
    const timedOut = signal.reason instanceof Error && signal.reason.name === 'TimeoutError';
    return timedOut
      ? { failureClass: 'timeout', termination: { kind: 'aborted', detail: 'the episode deadline passed' }, cause: signal.reason }
      : { failureClass: 'aborted', termination: { kind: 'aborted', detail: 'the run was aborted' }, cause: signal.reason ?? error };
  }
  for (const [kind, failure] of failuresByKind) {
    if (hasKind(error, kind)) return { failureClass: failure.failureClass, termination: { kind: failure.termination, detail: error.message }, cause: error };
  }
  throw error;
}

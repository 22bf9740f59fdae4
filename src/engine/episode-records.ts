import { AbortedError } from '../core/errors/aborted-error.js';
import { EnvironmentError } from '../core/errors/environment-error.js';
import { PolicyError } from '../core/errors/policy-error.js';
import { TemplateError } from '../core/errors/template-error.js';
import { TokenAlignmentError } from '../core/errors/token-alignment-error.js';
import { recordError } from '../core/recorded-error.js';
import { ROLLOUT_SCHEMA_VERSION, type FailureClass, type FailureRecord, type RolloutRecord } from '../core/rollout-record.js';
import type { Termination } from '../core/termination.js';
import type { EpisodeState } from './episode-state.js';

type SuccessfulTermination = RolloutRecord['termination'];
type FailedTermination = FailureRecord['termination'];

/** The keys rollout and failure records share, reduced from the episode's facts. */
function commonKeys(state: EpisodeState, finishedAt: number) {
  const reward_components: Record<string, number> = {};
  for (const turn of state.turns) {
    for (const [name, value] of Object.entries(turn.reward_components ?? {})) {
      reward_components[name] = (reward_components[name] ?? 0) + value;
    }
  }
  return {
    schema_version: ROLLOUT_SCHEMA_VERSION,
    ...state.key,
    messages: state.messages,
    reward: state.turns.reduce((total, turn) => total + turn.reward, 0),
    reward_components,
    turns: state.turns,
    has_training_tokens: state.messages.every((message) => message.role !== 'assistant' || message.generation_logprobs !== undefined),
    token_drift_count: state.turns.filter((turn) => turn.token_drift !== undefined).length,
    env_metadata: state.metadata ?? null,
    sampling: state.sampling,
    timing: { duration_ms: Math.max(0, finishedAt - state.startedAt) },
  };
}

export function rolloutRecord(state: EpisodeState, termination: Termination, finishedAt: number): RolloutRecord {
  return { record_type: 'rollout', ...commonKeys(state, finishedAt), termination: termination as SuccessfulTermination };
}

/** Classifies why an episode failed; errors of no known kind are bugs and are rethrown. */
export function failureRecord(state: EpisodeState, error: unknown, signal: AbortSignal, finishedAt: number): FailureRecord {
  const { failureClass, termination, cause } = classifyFailure(error, signal);
  return {
    record_type: 'failure',
    ...commonKeys(state, finishedAt),
    termination,
    failure_class: failureClass,
    error: recordError(cause),
  };
}

function classifyFailure(error: unknown, signal: AbortSignal): { failureClass: FailureClass; termination: FailedTermination; cause: unknown } {
  if (signal.aborted) {
    const timedOut = signal.reason instanceof Error && signal.reason.name === 'TimeoutError';
    return timedOut
      ? { failureClass: 'timeout', termination: { kind: 'aborted', detail: 'the episode deadline passed' }, cause: signal.reason }
      : { failureClass: 'aborted', termination: { kind: 'aborted', detail: 'the run was aborted' }, cause: signal.reason ?? error };
  }
  const detail = error instanceof Error ? error.message : String(error);
  if (error instanceof AbortedError) return { failureClass: 'aborted', termination: { kind: 'aborted', detail }, cause: error };
  if (error instanceof TokenAlignmentError) return { failureClass: 'token-alignment', termination: { kind: 'policy-error', detail }, cause: error };
  if (error instanceof TemplateError) return { failureClass: 'template-error', termination: { kind: 'policy-error', detail }, cause: error };
  if (error instanceof EnvironmentError) return { failureClass: 'env-error', termination: { kind: 'env-error', detail }, cause: error };
  if (error instanceof PolicyError) {
    const failureClass = error.kind === 'transport' ? 'transport' : error.kind === 'timeout' ? 'timeout' : 'policy-error';
    return { failureClass, termination: { kind: 'policy-error', detail }, cause: error };
  }
  throw error;
}

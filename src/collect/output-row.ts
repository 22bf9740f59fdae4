import { isDeterministicFailure, type RecordedError } from '../core/recorded-error.js';
import { FailureRow, ResultRow, ROW_SCHEMA_VERSION, type MaterializedRow } from '../core/result-row.js';
import type { EpisodeRecord } from '../core/rollout-record.js';
import type { FailureClass } from '../core/failure-class.js';
import type { Message } from '../core/message.js';
import type { TerminationKind } from '../core/termination.js';
import { messagesToResponsesItems } from '../core/responses-items.js';
import type { RolloutOutcome } from './sink.js';
import { withTrainingTokens } from './training-tokens.js';
import { extensibleCopy } from '../util/extensible-copy.js';

export interface EpisodeOutcomeOptions {
  /**
   * The Responses `output` items of the log from message `from` on, the episode's own (default:
   * `messagesToResponsesItems`). An agent whose environment reads tool calls out of the text passes
   * its own, so the row shows them as function calls the way NeMo Gym's agents do.
   */
  responseOutput?: (messages: readonly Message[], from: number) => unknown[];
}

/**
 * A finished episode as a NeMo Gym row: the materialized input, a Responses-style `response` (output
 * items, each model call's tokens on its last item in NeMo Gym's training shape, and usage), `reward`, `terminated`/`truncated`, the stamped keys, and gymnast's exact record
 * (`messages` with token ids and logprobs, `termination`, `turns`). A failure has no reward and goes
 * to the sidecar with its class and error.
 */
export function episodeOutcome(row: MaterializedRow, record: EpisodeRecord, openingMessages: number, options: EpisodeOutcomeOptions = {}): RolloutOutcome {
  let inputTokens = 0;
  let outputTokens = 0;
  for (const turn of record.turns) {
    inputTokens += turn.prompt_tokens;
    outputTokens += turn.generated_tokens;
  }
  const prompted = promptedThrough(record, openingMessages);
  const items = options.responseOutput ? options.responseOutput(record.messages, prompted) : messagesToResponsesItems(record.messages, prompted);
  // Built once, key by key, in the order the row is written (the order spreads of each part would give): rows are
  // ~3 KB of token ids each, and copying them part by part was a third of the client's output cost (issue 13).
  const built: Record<string, unknown> = extensibleCopy(row);
  const observed = withObservedInput(row, record.messages.slice(openingMessages, prompted));
  if (observed !== undefined) built.responses_create_params = observed;
  putReportedFields(built, record);
  built.schema_version = ROW_SCHEMA_VERSION;
  built.duration_ms = record.timing.duration_ms;
  if (record.timing.started_at !== undefined) built.started_at = record.timing.started_at;
  built.response = {
    output: withTrainingTokens(items, record.messages, prompted),
    // NeMo Gym's rows carry OpenAI's ResponseUsage whole, its `*_details` included (as /verify is sent it).
    usage: {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: inputTokens + outputTokens,
    },
  };
  if (Object.keys(record.reward_components).length > 0) built.reward_components = record.reward_components;
  // NeMo Gym's flags: terminated when the environment said so on the last step; truncated when the environment cut
  // the episode short, or a limit did (sequence, tokens, turns), or the server ended a generation for its own reason.
  const last = record.turns.at(-1);
  built.terminated = last?.env_terminated === true;
  built.truncated = last?.env_truncated === true || (CUT_SHORT as readonly string[]).includes(record.termination.kind);
  built.num_turns = record.turns.length;
  // The last answer the environment extracted, as NeMo Gym's `extracted_answer` (absent when it reports none).
  for (let i = record.turns.length - 1; i >= 0; i--) {
    const { answer } = record.turns[i]!;
    if (answer === undefined) continue;
    built.extracted_answer = answer;
    break;
  }
  built.token_drift_count = record.token_drift_count;
  if (record.drift_unchecked !== undefined) built.drift_unchecked = record.drift_unchecked;
  built.has_training_tokens = record.has_training_tokens;
  if (record.evaluation_only) built.evaluation_only = true;
  built.termination = record.termination;
  built.messages = record.messages;
  built.turns = record.turns;
  built.env_metadata = record.env_metadata;
  if (record.terminal_env_metadata !== undefined) built.terminal_env_metadata = record.terminal_env_metadata;
  built.sampling = record.sampling;
  if (record.record_type === 'rollout') {
    built.reward = record.reward;
    return { kind: 'result', row: built as ResultRow };
  }
  Object.assign(built, failureFields(record.failure_class, record.error), nemoGymClass(record));
  return { kind: 'failure', row: built as FailureRow };
}

/**
 * Where the model's part begins: at its first turn. What an environment showed before it (a reset's
 * board or dealt hand) was part of the prompt, and NeMo Gym's agents append it to the request's
 * input, so `response.output` starts with the model, as in NeMo Gym's rows.
 */
function promptedThrough(record: EpisodeRecord, openingMessages: number): number {
  const firstTurn = record.messages.findIndex((message, i) => i >= openingMessages && message.role === 'assistant');
  return firstTurn === -1 ? openingMessages : firstTurn;
}

/** The row's request with the reset's observations appended to its input (as Responses items); undefined when there were none. */
function withObservedInput(row: MaterializedRow, observed: readonly Message[]): Record<string, unknown> | undefined {
  if (observed.length === 0) return undefined;
  const params = row.responses_create_params as { input?: unknown };
  const input = typeof params.input === 'string' ? [{ role: 'user', content: params.input }] : Array.isArray(params.input) ? params.input : [];
  return { ...row.responses_create_params, input: [...input, ...messagesToResponsesItems(observed)] };
}

/** The keys gymnast writes itself on its rows: a field an environment reports under one of these names is not written. */
const OWN_KEYS: ReadonlySet<string> = new Set([...Object.keys(ResultRow.shape), ...Object.keys(FailureRow.shape)]);

/**
 * What the environment reported beyond rewards (a verifier's `info`, custom fields), at the top level
 * as NeMo Gym's rows have them, never over gymnast's own keys. NeMo Gym's `_ng_*` bookkeeping is left
 * out, but for the failure details its sidecar rows carry (`_ng_failure_judge_error`) on failure rows.
 */
function putReportedFields(row: Record<string, unknown>, record: EpisodeRecord): void {
  if (record.env_fields === undefined) return;
  for (const [key, value] of Object.entries(record.env_fields)) {
    if (OWN_KEYS.has(key) || (key.startsWith('_ng_') && !(record.record_type === 'failure' && key.startsWith('_ng_failure_')))) continue;
    // As a spread would: an own key even when it is `__proto__`.
    Object.defineProperty(row, key, { value, writable: true, enumerable: true, configurable: true });
  }
}

/** NeMo Gym's own word for a failure an environment reported (`judge_failed`), kept beside ours. */
function nemoGymClass(record: EpisodeRecord & { record_type: 'failure' }): { nemo_gym_failure_class?: string } {
  const reported = record.env_fields?._ng_failure_class;
  return typeof reported === 'string' && reported !== record.failure_class ? { nemo_gym_failure_class: reported } : {};
}

/** The class, the error, and whether retrying could ever help (a deterministic failure is never retried). */
export function failureFields(failureClass: FailureClass, error: RecordedError): Pick<FailureRow, '_ng_failure_class' | '_ng_failure_terminal' | 'error'> {
  return { _ng_failure_class: failureClass, ...(isDeterministicFailure(error) ? { _ng_failure_terminal: true } : {}), error };
}

/** Endings where something other than the environment cut the episode short. */
const CUT_SHORT = ['max-seq-len', 'prompt-too-long', 'max-tokens', 'max-turns', 'finish-other'] as const satisfies readonly TerminationKind[];

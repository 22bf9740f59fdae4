import type { EpisodeTask } from '../core/episode-task.js';
import type { Message } from '../core/message.js';
import type { SamplingParams } from '../core/sampling-params.js';
import type { ToolCall } from '../core/tool-call.js';
import type { TurnRecord } from '../core/turn-record.js';
import { TokenLedger } from '../tokens/token-ledger.js';
import type { Tokenizer } from '../tokens/tokenizer.js';
import type { Clock } from '../util/clock.js';
import type { EpisodeKey } from './engine-events.js';
import { extensibleCopy } from '../util/extensible-copy.js';

/** The facts an episode accumulates; records are built from it when the episode ends. */
export interface EpisodeState {
  key: EpisodeKey;
  /** Names the episode to the policy, which keeps its turns on one replica until `endSession`. */
  sessionId: string;
  task: EpisodeTask;
  /** Never changed in place: each append makes a new array, so a request in flight shares the one it was asked with (issue 26). */
  messages: readonly Message[];
  /** The token sequence so far: the `token_ids` of `messages`, in order. */
  ledger: TokenLedger;
  /** The environment's state as the next turn would get it: NeMo RL's `extra_env_info`. */
  metadata: unknown;
  /** What the step that ended the episode returned as metadata, which no turn gets (see `carryForward`); undefined when none. */
  terminalMetadata: unknown;
  stopStrings: readonly string[];
  sampling: SamplingParams;
  turns: TurnRecord[];
  /** The tool calls environments read in sampled turns, by message index: shown on those messages in the record. Made at the first (most episodes have none). */
  toolCalls: Map<number, ToolCall[]> | undefined;
  /** What the environment reported beyond rewards, merged over its steps (`StepResult.fields`); undefined until it reports any (most never do). */
  fields: Record<string, unknown> | undefined;
  /** A reading of the episode's clock. */
  startedAt: number;
  /** The wall time of `startedAt` (epoch ms), when the clock tells it. */
  startedAtEpochMs: number | undefined;
}

export function createEpisodeState(task: EpisodeTask, rolloutIndex: number, sampling: SamplingParams, tokenizer: Tokenizer, clock: Clock): EpisodeState {
  const startedAt = clock.now();
  return {
    key: { task_id: task.id, task_index: task.index, rollout_index: rolloutIndex },
    sessionId: `${task.id}#${rolloutIndex}`,
    task,
    messages: [],
    ledger: new TokenLedger(tokenizer),
    metadata: undefined,
    terminalMetadata: undefined,
    stopStrings: task.stop_strings ?? [],
    sampling: extensibleCopy(sampling, task.sampling),
    turns: [],
    toolCalls: undefined,
    fields: undefined,
    startedAt,
    startedAtEpochMs: clock.epochMs?.(startedAt),
  };
}

/** Appends messages to the log and their tokens to the ledger. */
export function appendMessages(state: EpisodeState, messages: readonly Message[]): void {
  // One `concat` for all of them, exactly as long: a spread with one more has room for 19.
  state.messages = state.messages.concat(messages);
  for (const message of messages) state.ledger.appendMessage(message);
}

import type { EpisodeTask } from '../core/episode-task.js';
import type { Message } from '../core/message.js';
import type { SamplingParams } from '../core/sampling-params.js';
import type { TurnRecord } from '../core/turn-record.js';
import type { EpisodeKey } from './engine-events.js';

/** The facts an episode accumulates; records are built from it when the episode ends. */
export interface EpisodeState {
  key: EpisodeKey;
  task: EpisodeTask;
  messages: Message[];
  /** Tokens on the sequence so far (sum of `token_ids` over `messages`). */
  tokenCount: number;
  metadata: unknown;
  stopStrings: readonly string[];
  sampling: SamplingParams;
  turns: TurnRecord[];
  startedAt: number;
}

export function createEpisodeState(task: EpisodeTask, rolloutIndex: number, sampling: SamplingParams, startedAt: number): EpisodeState {
  return {
    key: { task_id: task.id, task_index: task.index, rollout_index: rolloutIndex },
    task,
    messages: [],
    tokenCount: 0,
    metadata: undefined,
    stopStrings: task.stop_strings ?? [],
    sampling: { ...sampling, ...task.sampling },
    turns: [],
    startedAt,
  };
}

/** Appends messages whose `token_ids` are set, keeping the running token count. */
export function appendMessages(state: EpisodeState, messages: readonly Message[]): void {
  for (const message of messages) {
    state.messages.push(message);
    state.tokenCount += message.token_ids?.length ?? 0;
  }
}

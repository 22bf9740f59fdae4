import type { EpisodeRecord } from '../core/rollout-record.js';
import type { TurnRecord } from '../core/turn-record.js';

/** Identifies one episode: a task and which of its rollouts this is. */
export interface EpisodeKey {
  task_id: string;
  task_index: number;
  rollout_index: number;
}

/** What the engine tells observers. Observers derive counters from these; the loop keeps none. */
export type EngineEvent =
  | ({ type: 'episode-start' } & EpisodeKey)
  | ({ type: 'turn-start'; turn: number } & EpisodeKey)
  | ({ type: 'turn-end'; turn: TurnRecord } & EpisodeKey)
  | ({ type: 'episode-end'; record: EpisodeRecord } & EpisodeKey);

/** Observers run synchronously inside the loop: keep them cheap, and never throw from one. */
export type EngineObserver = (event: EngineEvent) => void;

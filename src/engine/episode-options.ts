import type { SamplingParams } from '../core/sampling-params.js';
import type { Environment } from '../environments/environment.js';
import type { Policy } from '../policy/policy.js';
import type { ConversationRenderer } from '../tokens/conversation-renderer.js';
import type { Clock } from '../util/clock.js';
import type { EngineObserver } from './engine-events.js';

/**
 * What a generation cut by `max_tokens` does to its episode, in every schedule:
 * - `end` (default): the environment still scores the turn, then the episode ends as `max-tokens`.
 *   A cut answer rarely deserves another turn, and this is what NeMo RL's async path does.
 * - `continue`: the turn counts like any other and the episode goes on (NeMo RL's sync path).
 */
export type MaxTokensPolicy = 'end' | 'continue';

/** Everything one episode needs; built once per run and shared by all its episodes. */
export interface EpisodeOptions {
  policy: Policy;
  environment: Environment;
  renderer: ConversationRenderer;
  /** Turns allowed; an episode still active after its last allowed turn ends as `max-turns`. */
  maxTurns: number;
  /** Hard cap on the episode's token sequence (prompt + generations + observations). */
  maxSeqLen: number;
  sampling: SamplingParams;
  /** Ids that end any generation; defaults to the tokenizer's own (its end-of-sequence token). */
  stopTokenIds?: readonly number[];
  onMaxTokens?: MaxTokensPolicy;
  /** Deadline for the whole episode; when it passes the episode ends as a `timeout` failure. */
  episodeTimeoutMs?: number;
  onEvent?: EngineObserver;
  clock?: Clock;
}

import type { SamplingParams } from '../core/sampling-params.js';
import type { Environment } from '../environments/environment.js';
import type { Policy } from '../policy/policy.js';
import type { ConversationRenderer } from '../tokens/conversation-renderer.js';
import type { Clock } from '../util/clock.js';
import type { EngineObserver } from './engine-events.js';

/**
 * What a generation cut by `max_tokens` does to its episode, in every schedule:
 * - `continue` (default): the turn goes to the environment like any other, which scores the cut
 *   answer, and the episode goes on or ends as the environment says. NeMo RL's two loops do this
 *   (`run_multi_turn_rollout` and `run_sample_multi_turn_rollout` in `nemo_rl/experience/rollouts.py`
 *   never look at why a generation stopped).
 * - `end`: gymnast's option. The environment still scores the turn, told it is the last
 *   (`EnvironmentTurn.final`), then the episode ends as `max-tokens`: no turn is built on an answer
 *   that was cut off mid-way.
 * Either way the turn records the cut (`TurnRecord.generation_cut`).
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
  /** Default `continue`, as NeMo RL. */
  onMaxTokens?: MaxTokensPolicy;
  /** Deadline for the whole episode; when it passes the episode ends as a `timeout` failure. */
  episodeTimeoutMs?: number;
  onEvent?: EngineObserver;
  clock?: Clock;
}

import type { z } from 'zod';
import type { Message } from '../core/message.js';
import type { StepResultInput } from '../core/step-result.js';

/** What a reset gives the episode before the first generation. */
export interface ResetResult<Metadata = unknown> {
  /** The environment's per-episode state (NeMo RL's `metadata` / `extra_env_info`); must be JSON-serializable. */
  metadata: Metadata;
  /** Messages appended to the task's prompt before the first turn (a board, a welcome text). */
  observation?: Message[];
  /** Stop strings for the first turn, replacing the task's own. */
  stop_strings?: string[];
}

/** Token counts of an episode so far, summed over its turns as NeMo Gym sums `response.usage`. */
export interface EpisodeUsage {
  /** Prompt tokens of every turn (a multi-turn episode counts its history once per turn). */
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
}

/** One turn handed to the environment: the conversation so far (text only) and its state. */
export interface EnvironmentTurn<Metadata = unknown> {
  /** Every message so far, ending with the assistant turn just sampled. No token fields. */
  messages: readonly Message[];
  metadata: Metadata;
  /** The task's data, as `reset` got it: an environment need not copy it into its metadata. Set by the engine. */
  data?: unknown;
  /** Tokens so far, this turn included. Set by the engine. */
  usage?: EpisodeUsage;
  /**
   * No turn follows this one, whatever the step returns: the turn limit is reached, or the generation
   * was cut and the engine ends such episodes. An environment that scores at the end scores now (NeMo
   * Gym's agents verify a rollout their step limit cut short). Set by the engine.
   */
  final?: boolean;
}

/** How an environment's observations become tokens (see `Environment.observationTokens`). */
export type ObservationTokens = 'raw' | 'template';

/**
 * A verifier, game, tool box or sandbox an episode talks to. Implementations keep no per-episode
 * state of their own: everything an episode needs lives in its `metadata`.
 */
export interface Environment<Metadata = unknown> {
  readonly name: string;
  /**
   * The task data `reset` reads, as a schema: rows are checked against it before a run starts, so a
   * missing or mistyped field is reported with every other bad line instead of failing its rollouts.
   */
  readonly taskSchema?: z.ZodType;
  /**
   * Its reset opens the conversation (a game's first observation, a board), so a task may bring no
   * prompt of its own: `input: []` is then a task, where otherwise it is refused before the run.
   */
  readonly opensConversation?: boolean;
  /**
   * How its step observations become tokens on the sequence (the prompt and a reset's observation are
   * always rendered by the chat template):
   * - `template` (default; every built-in environment): rendered by the model's chat template, as the
   *   messages a chat model expects, the next turn's generation prompt included;
   * - `raw`: each message's content encoded as it is, nothing added: NeMo RL's loops tokenize an
   *   observation this way (`tokenizer(content, add_special_tokens=False)`), and its environments write
   *   the template's tokens into their content themselves (`<|im_start|>user\n…<|im_end|>\n<|im_start|>assistant\n`).
   *   An environment written for NeMo RL declares `raw`, or its observations are templated twice.
   */
  readonly observationTokens?: ObservationTokens;
  /** Starts an episode from a task's data (`EpisodeTask.data`). */
  reset(data: unknown, signal: AbortSignal): Promise<ResetResult<Metadata>>;
  step(turn: EnvironmentTurn<Metadata>, signal: AbortSignal): Promise<StepResultInput>;
  /** Steps many episodes in one call, for environments that gain from batching (a reward model, a sandbox pool). */
  stepBatch?(turns: readonly EnvironmentTurn<Metadata>[], signal: AbortSignal): Promise<StepResultInput[]>;
  /**
   * What of an episode's metadata goes on its record (`env_metadata` in output rows and the viewer);
   * all of it when absent. What the environment needs between steps but must not be written out
   * (a server's session cookies) is left out here.
   */
  recordedMetadata?(metadata: Metadata): unknown;
  /**
   * Called once an episode is over, however it ended (its last step, a limit, a failed generation,
   * a timeout, an abort), with its last state: frees what the episode holds outside the process (a
   * server's session). It has a deadline of its own, since the episode's signal may have aborted;
   * a failure here changes nothing of the record, which is already made.
   */
  release?(episode: { metadata: Metadata; data: unknown }, signal: AbortSignal): Promise<void>;
}

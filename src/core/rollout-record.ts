import { z } from 'zod';
import { FailureClass } from './failure-class.js';
import { Message } from './message.js';
import { RecordedError } from './recorded-error.js';
import { SamplingParams } from './sampling-params.js';
import { Termination, TerminationKind, successfulTerminations } from './termination.js';
import { TurnRecord } from './turn-record.js';

/** Bumped on any change a reader must know about; every version keeps a fixture and a reader test. */
export const ROLLOUT_SCHEMA_VERSION = 1 as const;

const recordKeys = {
  schema_version: z.literal(ROLLOUT_SCHEMA_VERSION),
  task_id: z.string(),
  task_index: z.number().int().nonnegative(),
  rollout_index: z.number().int().nonnegative(),
  /** The full log: prompt, sampled turns (token ids + logprobs) and observations. */
  messages: z.array(Message),
  /** Sum of every step's reward. */
  reward: z.number(),
  /** Sum of every step's named reward components; they add up to `reward` when the environment names them. */
  reward_components: z.record(z.string(), z.number()),
  termination: Termination,
  turns: z.array(TurnRecord),
  /** Every assistant turn carries the sampler's ids and logprobs (false with text-only backends: evaluation only). */
  has_training_tokens: z.boolean(),
  /** A turn was sampled by a text-only backend: its tokens are the server's count, not ids to train on. Absent otherwise. */
  evaluation_only: z.literal(true).optional(),
  /** Turns whose rendering drifted from the chat template (0 when the sequence is what the template renders). */
  token_drift_count: z.number().int().nonnegative(),
  /**
   * Turns whose server-rendered prompt came back without its ids (`turns[i].drift_unchecked`): present,
   * 0 included, on every rollout whose prompts a server rendered, so a run's column has no gaps.
   */
  drift_unchecked: z.number().int().nonnegative().optional(),
  /**
   * The environment's state as NeMo RL leaves `extra_env_info`: its metadata after the last step that
   * changed it and did not end the episode. A step that ends it (the environment's end, or the sequence
   * reaching `max_seq_len`) passes nothing on, in NeMo RL's loops as here.
   */
  env_metadata: z.unknown(),
  /** The metadata the step that ended the episode returned (its final board, its info), which NeMo RL drops; absent when it returned none. */
  terminal_env_metadata: z.unknown().optional(),
  /** What the environment reported beyond rewards (`StepResult.fields`, merged over steps); absent when it reported nothing. */
  env_fields: z.record(z.string(), z.unknown()).optional(),
  /** The sampling params the episode ran with: the meaning of `generation_logprobs` depends on them. */
  sampling: SamplingParams,
  /** `started_at`: epoch ms, when the clock tells the wall time (an injected test clock may not). */
  timing: z.object({ duration_ms: z.number().nonnegative(), started_at: z.number().nonnegative().optional() }),
};

/** A finished episode whose reward is real. */
export const RolloutRecord = z.object({
  ...recordKeys,
  record_type: z.literal('rollout'),
  termination: Termination.extend({ kind: z.enum(successfulTerminations) }),
});
export type RolloutRecord = z.infer<typeof RolloutRecord>;

/** An episode that could not finish. Same keys as a rollout, so nothing is lost, but its reward is never used. */
export const FailureRecord = z.object({
  ...recordKeys,
  record_type: z.literal('failure'),
  termination: Termination.extend({ kind: TerminationKind.exclude([...successfulTerminations]) }),
  failure_class: FailureClass,
  error: RecordedError,
});
export type FailureRecord = z.infer<typeof FailureRecord>;

export const EpisodeRecord = z.discriminatedUnion('record_type', [RolloutRecord, FailureRecord]);
export type EpisodeRecord = z.infer<typeof EpisodeRecord>;

/** The rollout's tokens in order: what a trainer feeds back into the model. */
export function flatTokenIds(record: Pick<RolloutRecord, 'messages'>): number[] {
  return record.messages.flatMap((message) => message.token_ids ?? []);
}

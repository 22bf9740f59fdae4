import { z } from 'zod';
import { FinishReason } from './finish-reason.js';

/** What happened in one policy → environment turn. Timing lives under `timing` so records compare without it. */
export const TurnRecord = z.object({
  index: z.number().int().nonnegative(),
  /** Sequence length the policy was prompted with. */
  prompt_tokens: z.number().int().nonnegative(),
  generated_tokens: z.number().int().nonnegative(),
  /** Observation tokens appended after the generation (after any truncation to fit `max_seq_len`). */
  env_tokens: z.number().int().nonnegative(),
  finish_reason: FinishReason,
  /** Which distribution `generation_logprobs` come from (`raw`: before temperature and filters), when the policy says. */
  logprobs_mode: z.enum(['raw', 'processed']).optional(),
  /** The version of the weights that sampled this turn (0 at start, +1 per update), when the policy reports one; absent otherwise. */
  policy_version: z.number().int().nonnegative().optional(),
  /**
   * The base URL of the replica that sampled this turn (its credentials masked), when the policy is
   * served over HTTP; absent for the embedded model and scripted policies.
   */
  server: z.string().optional(),
  reward: z.number(),
  reward_components: z.record(z.string(), z.number()).optional(),
  /** The answer the environment extracted from this turn, if it reports one (for majority voting). */
  answer: z.string().nullable().optional(),
  /** The environment's own flags for this step (gymnasium's `terminated` and `truncated`). */
  env_terminated: z.boolean().optional(),
  env_truncated: z.boolean().optional(),
  /**
   * Present when the generation was cut before it ended by itself: `max-tokens` by the request's
   * `max_tokens`, `max-seq-len` by the room left under `max_seq_len`. The turn still went to the
   * environment, and the episode goes on unless something else ends it (see `MaxTokensPolicy`).
   */
  generation_cut: z.enum(['max-tokens', 'max-seq-len']).optional(),
  /** The observation was cut to fit the `max_seq_len` budget. */
  observation_truncated: z.boolean(),
  /**
   * Present (true) when this turn brought the sequence to `max_seq_len`: prompt, generation and the
   * whole observation reached it, cut or not. NeMo RL's rollouts (`run_multi_turn_rollout` and
   * `run_sample_multi_turn_rollout`) mark such a sample truncated, whatever the environment said.
   */
  max_seq_len_reached: z.literal(true).optional(),
  /** The chat template would have rendered the history differently from the tokens on the sequence (see `DriftMode`). */
  token_drift: z.object({ source: z.enum(['template', 'server']), at: z.number().int(), ledger: z.string(), template: z.string() }).optional(),
  /**
   * Present when the server rendered this turn's prompt from the messages: `true` when its reply did
   * not say which ids it used, so whether they match the sequence is unknown (the turn counts neither
   * as drift nor as drift-free); `false` when they were checked. Absent for prompts sent as ids.
   */
  drift_unchecked: z.boolean().optional(),
  timing: z.object({
    /** When the generation was asked for, in ms from the rollout's start (`started_at`); absent in rows written before gymnast recorded it. */
    start_ms: z.number().nonnegative().optional(),
    generation_ms: z.number().nonnegative(),
    env_ms: z.number().nonnegative(),
  }),
});
export type TurnRecord = z.infer<typeof TurnRecord>;

import { z } from 'zod';

/**
 * Why an episode ended. Every exit from the episode loop records exactly one.
 * - `env-done`: the environment terminated (or truncated) the episode: the reward is final.
 * - `max-turns`: still active after its last allowed turn.
 * - `max-seq-len`: the sequence filled `max_seq_len` (an observation was cut to fit, or no room was left to generate).
 * - `prompt-too-long`: the prompt left no room to generate (it alone filled `max_seq_len`, or the
 *   server's context refused it before the first turn), so nothing was sampled and nothing scored it. The row is NeMo Gym's `truncated`; its reward (0, as NeMo Gym's row format
 *   needs a number) is no score, and gymnast's metrics leave it out (see `isZeroTurnRow`).
 * - `max-tokens`: a generation was cut by `max_tokens` and the engine is set to end such episodes.
 * - `finish-other`: the server ended a generation for a reason gymnast does not know (such as
 *   `content_filter`; the raw reason is in `detail`). The environment still scores that turn, as
 *   with `max-tokens`, then the episode ends: another turn would build on an answer the server cut.
 * - `policy-error`, `env-error`, `aborted`: failures; these appear only on failure records.
 */
export const TerminationKind = z.enum([
  'env-done',
  'max-turns',
  'max-seq-len',
  'prompt-too-long',
  'max-tokens',
  'finish-other',
  'policy-error',
  'env-error',
  'aborted',
]);
export type TerminationKind = z.infer<typeof TerminationKind>;

export const Termination = z.object({
  kind: TerminationKind,
  detail: z.string().optional(),
});
export type Termination = z.infer<typeof Termination>;

/** The kinds a successful rollout may end with; the others belong to failure records. */
export const successfulTerminations = [
  'env-done',
  'max-turns',
  'max-seq-len',
  'prompt-too-long',
  'max-tokens',
  'finish-other',
] as const satisfies readonly TerminationKind[];

/** How a rollout whose reward is real ended. */
export type SuccessfulTermination = Termination & { kind: (typeof successfulTerminations)[number] };

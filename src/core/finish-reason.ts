import { z } from 'zod';

/**
 * Why a generation stopped. `unified` is ours and portable; `raw` is what the backend said
 * (`stop`, `length`, `eos`, `content_filter`, …), kept so nothing is lost in the mapping.
 * `other`: the server ended the generation for a reason gymnast does not know (`raw` says which);
 * it ends the episode after the environment scores the turn (termination `finish-other`).
 * `error`: the server says the generation failed; the episode is a policy failure.
 */
export const FinishReason = z.object({
  unified: z.enum(['stop', 'length', 'abort', 'error', 'other']),
  raw: z.string().optional(),
});
export type FinishReason = z.infer<typeof FinishReason>;

import { z } from 'zod';

/**
 * Why a generation stopped. `unified` is ours and portable; `raw` is what the backend said
 * (`stop`, `length`, `eos`, …), kept so nothing is lost in the mapping.
 */
export const FinishReason = z.object({
  unified: z.enum(['stop', 'length', 'abort', 'error']),
  raw: z.string().optional(),
});
export type FinishReason = z.infer<typeof FinishReason>;

import { z } from 'zod';

/** Token counts of one generation, as the backend reported them. */
export const Usage = z.object({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof Usage>;

import { z } from 'zod';

/** How the policy samples. Recorded with every rollout so a trainer knows what the logprobs mean. */
export const SamplingParams = z.object({
  temperature: z.number().nonnegative().default(1),
  top_p: z.number().gt(0).max(1).default(1),
  /** 0 or absent: no top-k filter. */
  top_k: z.number().int().nonnegative().optional(),
  max_tokens: z.number().int().positive().default(256),
  /** Base seed; the engine derives a distinct seed per (task, rollout, turn) from it. */
  seed: z.number().int().optional(),
  /** Argmax decoding; overrides temperature, top_p and top_k. */
  greedy: z.boolean().default(false),
});
export type SamplingParams = z.infer<typeof SamplingParams>;
export type SamplingParamsInput = z.input<typeof SamplingParams>;

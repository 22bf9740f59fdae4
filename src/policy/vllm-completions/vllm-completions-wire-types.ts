import { z } from 'zod';

/** vLLM `/v1/completions` with `prompt: number[]` (≥ 0.10.2 for `return_token_ids`). Only the fields gymnast reads. */
export const VllmCompletionsResponse = z.object({
  choices: z
    .array(
      z.object({
        text: z.string(),
        token_ids: z.array(z.number().int()).nullable().optional(),
        /** The ids vLLM sampled from (with `return_token_ids`): the ids sent, unless something between changed them. */
        prompt_token_ids: z.array(z.number().int()).nullable().optional(),
        logprobs: z
          .object({ token_logprobs: z.array(z.number().nullable()) })
          .nullable()
          .optional(),
        finish_reason: z.string().nullable(),
        stop_reason: z.union([z.string(), z.number(), z.null()]).optional(),
        /** Which weights sampled it: gymnast's served embedded model says (vLLM does not). */
        policy_version: z.number().int().nonnegative().optional(),
      }),
    )
    .min(1),
  usage: z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int() }),
});
export type VllmCompletionsResponse = z.infer<typeof VllmCompletionsResponse>;

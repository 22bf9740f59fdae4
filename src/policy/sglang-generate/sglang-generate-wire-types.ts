import { z } from 'zod';

/** SGLang's native `/generate` answer (`return_logprob: true`). */
export const SglangGenerateResponse = z.object({
  text: z.string(),
  output_ids: z.array(z.number().int()).optional(),
  meta_info: z.object({
    finish_reason: z.object({ type: z.string(), matched: z.union([z.string(), z.number(), z.null()]).optional() }).nullable(),
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    /** `[logprob, token_id, text | null]` per output token. */
    output_token_logprobs: z.array(z.tuple([z.number(), z.number().int(), z.string().nullable()])).optional(),
  }),
});
export type SglangGenerateResponse = z.infer<typeof SglangGenerateResponse>;

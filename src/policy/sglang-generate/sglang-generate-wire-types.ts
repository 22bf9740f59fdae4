import { z } from 'zod';

/** SGLang's native `/generate` answer (`return_logprob: true`, `return_prompt_token_ids: true`). */
export const SglangGenerateResponse = z.object({
  text: z.string(),
  output_ids: z.array(z.number().int()).optional(),
  /** The ids SGLang sampled from (with `return_prompt_token_ids`; versions without it leave it out). */
  prompt_token_ids: z.array(z.number().int()).nullable().optional(),
  meta_info: z.object({
    finish_reason: z.object({ type: z.string(), matched: z.union([z.string(), z.number(), z.null()]).optional() }).nullable(),
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    /** `[logprob, token_id, text | null]` per output token. */
    output_token_logprobs: z.array(z.tuple([z.number(), z.number().int(), z.string().nullable()])).optional(),
    /**
     * Which weights sampled it, as SGLang names them (`--weight-version`, or `weight_version` of
     * `/update_weights_from_disk`; "default" until set). A count ("3") is read as the turn's `policy_version`.
     */
    weight_version: z.union([z.string(), z.number(), z.null()]).optional(),
  }),
});
export type SglangGenerateResponse = z.infer<typeof SglangGenerateResponse>;

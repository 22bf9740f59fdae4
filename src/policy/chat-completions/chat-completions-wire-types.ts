import { z } from 'zod';

/** `/v1/chat/completions` answers from vLLM (prompt ids top-level) and SGLang (prompt ids on the choice). */
export const ChatCompletionsResponse = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullable() }),
        token_ids: z.array(z.number().int()).nullable().optional(),
        prompt_token_ids: z.array(z.number().int()).nullable().optional(),
        logprobs: z
          .object({ content: z.array(z.object({ token: z.string(), logprob: z.number() })).nullable() })
          .nullable()
          .optional(),
        finish_reason: z.string().nullable(),
        /** Which weights sampled it: gymnast's served embedded model says (vLLM and SGLang do not). */
        policy_version: z.number().int().nonnegative().optional(),
      }),
    )
    .min(1),
  prompt_token_ids: z.array(z.number().int()).nullable().optional(),
  usage: z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int() }),
});
export type ChatCompletionsResponse = z.infer<typeof ChatCompletionsResponse>;

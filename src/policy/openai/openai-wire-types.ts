import { z } from 'zod';

/** A plain OpenAI-compatible chat answer: text, no token ids. */
export const OpenAiChatResponse = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable() }), finish_reason: z.string().nullable() })).min(1),
  usage: z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int() }).optional(),
});
export type OpenAiChatResponse = z.infer<typeof OpenAiChatResponse>;

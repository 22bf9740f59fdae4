import { z } from 'zod';

/** A function call the model asked for, in OpenAI chat shape (`arguments` is the raw JSON string the model wrote). */
export const ToolCall = z.object({
  id: z.string(),
  type: z.literal('function').default('function'),
  function: z.object({
    name: z.string(),
    arguments: z.string(),
  }),
});
export type ToolCall = z.infer<typeof ToolCall>;

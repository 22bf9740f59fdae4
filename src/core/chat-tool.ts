import { z } from 'zod';

/** A tool offered to the model, in OpenAI chat shape (what chat templates read as `tools`). */
export const ChatTool = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string(),
    description: z.string().optional(),
    /** JSON Schema of the arguments. */
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});
export type ChatTool = z.infer<typeof ChatTool>;

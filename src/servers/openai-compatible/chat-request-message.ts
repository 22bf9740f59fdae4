import { z } from 'zod';
import type { Message } from '../../core/message.js';
import { ToolCall } from '../../core/tool-call.js';

/** Content as OpenAI clients send it: a string, null (an assistant turn that only calls tools), or a list of text parts. */
const TextPart = z.object({ type: z.literal('text', 'only text content parts can be read by this text-only model'), text: z.string() });
const Content = z.union([z.string(), z.null(), z.array(TextPart)]);

/**
 * One message of a chat request as OpenAI clients write it (the `openai` SDK, the AI SDK): the
 * `developer` role, null or part-list content, `reasoning` or `reasoning_content`. Read into a
 * gymnast `Message` by `toMessage`.
 */
export const ChatRequestMessage = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'environment']),
  content: Content.optional(),
  name: z.string().optional(),
  reasoning_content: z.string().optional(),
  reasoning: z.string().optional(),
  tool_calls: z.array(ToolCall).optional(),
  tool_call_id: z.string().optional(),
});
export type ChatRequestMessage = z.infer<typeof ChatRequestMessage>;

/**
 * The message as the chat template reads it. `developer` is OpenAI's newer name for `system` (chat
 * templates know only `system`, so vLLM renders it the same way); parts are joined in order.
 */
export function toMessage(message: ChatRequestMessage): Message {
  const content = message.content ?? '';
  const reasoning = message.reasoning_content ?? message.reasoning;
  return {
    role: message.role === 'developer' ? 'system' : message.role,
    content: typeof content === 'string' ? content : content.map((part) => part.text).join(''),
    ...(reasoning === undefined ? {} : { reasoning_content: reasoning }),
    ...(message.tool_calls === undefined ? {} : { tool_calls: message.tool_calls }),
    ...(message.tool_call_id === undefined ? {} : { tool_call_id: message.tool_call_id }),
  };
}

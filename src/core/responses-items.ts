import { z } from 'zod';
import type { ChatTool } from './chat-tool.js';
import type { Message } from './message.js';
import type { ToolCall } from './tool-call.js';

/** Text parts of a Responses-API message (`input_text`, `output_text`, …); other part types are kept but not rendered. */
const ContentPart = z.object({ type: z.string(), text: z.string().optional() }).passthrough();

const MessageItem = z
  .object({
    type: z.literal('message').optional(),
    role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
    content: z.union([z.string(), z.array(ContentPart)]),
  })
  .passthrough();

const FunctionCallItem = z.object({ type: z.literal('function_call'), call_id: z.string(), name: z.string(), arguments: z.string() }).passthrough();

const FunctionCallOutputItem = z.object({ type: z.literal('function_call_output'), call_id: z.string(), output: z.string() }).passthrough();

const ReasoningItem = z.object({ type: z.literal('reasoning'), summary: z.array(z.object({ text: z.string() }).passthrough()).default([]) }).passthrough();

/** One item of NeMo Gym's `responses_create_params.input` (OpenAI Responses API). */
export const ResponsesItem = z.union([FunctionCallItem, FunctionCallOutputItem, ReasoningItem, MessageItem]);
export type ResponsesItem = z.infer<typeof ResponsesItem>;

/** A Responses-API tool: flat, with `strict`, unlike chat tools. */
export const ResponsesTool = z
  .object({
    type: z.literal('function'),
    name: z.string(),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().optional(),
  })
  .passthrough();
export type ResponsesTool = z.infer<typeof ResponsesTool>;

/**
 * Responses-API input → chat messages, as vLLM's Responses endpoint does: `developer` becomes `system`,
 * text parts are joined, function calls join the assistant message before them (or start one),
 * call outputs become `tool` messages, and reasoning summaries become the next assistant turn's `reasoning_content`.
 */
export function responsesInputToMessages(input: string | readonly ResponsesItem[]): Message[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  const messages: Message[] = [];
  let reasoning: string | undefined;
  for (const item of input) {
    if (item.type === 'reasoning') {
      reasoning = item.summary.map((part) => part.text).join('\n');
    } else if (item.type === 'function_call') {
      const call: ToolCall = { id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } };
      const last = messages.at(-1);
      if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
      else messages.push(withReasoning({ role: 'assistant', content: '', tool_calls: [call] }, reasoning));
      reasoning = undefined;
    } else if (item.type === 'function_call_output') {
      messages.push({ role: 'tool', content: item.output, tool_call_id: item.call_id });
    } else {
      const role = item.role === 'developer' ? 'system' : item.role;
      const content = typeof item.content === 'string' ? item.content : item.content.map((part) => part.text ?? '').join('');
      messages.push(role === 'assistant' ? withReasoning({ role, content }, reasoning) : { role, content });
      if (role === 'assistant') reasoning = undefined;
    }
  }
  // Exactly as long: an array grown by `push` from empty has room for 17, and a task's messages live
  // as long as its episodes (~130 bytes each in flight, issue 26).
  return messages.slice();
}

function withReasoning(message: Message, reasoning: string | undefined): Message {
  return reasoning === undefined ? message : { ...message, reasoning_content: reasoning };
}

/** Chat messages from `from` on → Responses-API items (the inverse of `responsesInputToMessages`; token fields are dropped). */
export function messagesToResponsesItems(messages: readonly Message[], from = 0): ResponsesItem[] {
  const items: ResponsesItem[] = [];
  for (let i = from; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === 'tool') {
      items.push({ type: 'function_call_output', call_id: message.tool_call_id ?? '', output: message.content });
      continue;
    }
    const role = message.role === 'environment' ? 'user' : message.role;
    if (message.reasoning_content !== undefined) items.push({ type: 'reasoning', summary: [{ text: message.reasoning_content }] });
    if (message.content !== '' || message.tool_calls === undefined) {
      items.push({ type: 'message', role, content: role === 'assistant' ? [{ type: 'output_text', text: message.content }] : message.content });
    }
    for (const call of message.tool_calls ?? []) {
      items.push({ type: 'function_call', call_id: call.id, name: call.function.name, arguments: call.function.arguments });
    }
  }
  return items;
}

/** Responses tools → chat tools. `strict` has no place in chat templates and is dropped (NeMo RL's prompts have none). */
export function responsesToolsToChatTools(tools: readonly ResponsesTool[]): ChatTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      ...(tool.parameters === undefined ? {} : { parameters: tool.parameters }),
    },
  }));
}

export function chatToolsToResponsesTools(tools: readonly ChatTool[]): ResponsesTool[] {
  return tools.map(({ function: fn }) => ({
    type: 'function',
    name: fn.name,
    ...(fn.description === undefined ? {} : { description: fn.description }),
    ...(fn.parameters === undefined ? {} : { parameters: fn.parameters }),
  }));
}

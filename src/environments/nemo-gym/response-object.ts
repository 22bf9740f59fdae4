import type { Message } from '../../core/message.js';
import { messagesToResponsesItems, type ResponsesItem } from '../../core/responses-items.js';
import type { EpisodeUsage } from '../environment.js';
import { toToolCall, type ToolCallParser } from '../tool-call-parser.js';

/** What a NeMo Gym server reads as `response`: an OpenAI Responses object, with the fields its model requires. */
export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  model: string;
  status: 'completed';
  error: null;
  incomplete_details: null;
  output: unknown[];
  parallel_tool_calls: boolean;
  tool_choice: 'auto';
  tools: unknown[];
  usage: {
    input_tokens: number;
    input_tokens_details: { cached_tokens: number };
    output_tokens: number;
    output_tokens_details: { reasoning_tokens: number };
    total_tokens: number;
  };
}

const THINKING = /^\s*<think>([\s\S]*?)<\/think>\s*/;

/**
 * The Responses `output` items of a conversation from message `from` on, as NeMo Gym's agents show a
 * vLLM model's turns: a sampled turn's `<think>` block as a reasoning item, its text outside the
 * tool-call markup as a message, its calls as function_call items (the ids its tool messages answer);
 * tool messages as function_call_output items; observations as input messages. Items carry the ids
 * and statuses NeMo Gym's response model requires. The messages themselves are not changed.
 */
export function responseOutput(messages: readonly Message[], from: number, parser: ToolCallParser): unknown[] {
  let turn = messages.slice(0, from).filter((message) => message.role === 'assistant').length;
  const read = messages.slice(from).map((message) => (message.role === 'assistant' ? readAssistantTurn(message, turn++, parser) : message));
  return messagesToResponsesItems(read).map(withRequiredFields);
}

/**
 * A sampled turn's leading `<think>` block (Qwen3, DeepSeek-R1) apart from the rest, as vLLM's reasoning
 * parser splits it: tool calls are read in the rest only, never in the model's thoughts.
 */
export function splitThinking(content: string): { reasoning?: string; text: string } {
  const thinking = THINKING.exec(content);
  if (!thinking) return { text: content };
  const reasoning = thinking[1]!.trim();
  return { ...(reasoning ? { reasoning } : {}), text: content.slice(thinking[0].length) };
}

/** A sampled turn as a Responses model sees it: reasoning apart, tool calls structured, the rest as text. */
function readAssistantTurn(message: Message, turn: number, parser: ToolCallParser): Message {
  const { reasoning: thought, text } = splitThinking(message.content);
  const reasoning = thought ?? message.reasoning_content;
  const parsed = parser.parse(text, turn);
  const calls = message.tool_calls ?? (parsed.blocks.length > 0 ? parsed.blocks.map(toToolCall) : undefined);
  return {
    role: 'assistant',
    content: parsed.blocks.length > 0 ? parsed.text : text.trim(),
    ...(reasoning ? { reasoning_content: reasoning } : {}),
    ...(calls ? { tool_calls: calls } : {}),
  };
}

/** Ids, statuses and annotations: pydantic models of the Responses API refuse items without them. */
function withRequiredFields(item: ResponsesItem, index: number): unknown {
  if (item.type === 'function_call') return { ...item, id: `fc_${item.call_id}`, status: 'completed' };
  if (item.type === 'reasoning')
    return { id: `rs_${index}`, type: 'reasoning', summary: item.summary.map((part) => ({ type: 'summary_text', text: part.text })) };
  if (item.type === 'message' && item.role === 'assistant' && Array.isArray(item.content)) {
    const content = item.content.map((part) => ({ type: 'output_text', text: part.text ?? '', annotations: [] }));
    return { id: `msg_${index}`, type: 'message', role: 'assistant', status: 'completed', content };
  }
  return item;
}

/** A complete Responses object around output items (what `/verify` and `/step` read as `response`). */
export function responseObject(options: { id: string; model: string; output: unknown[]; usage: EpisodeUsage | undefined; tools: unknown[] }): ResponseObject {
  const usage = options.usage ?? { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  return {
    id: options.id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model: options.model,
    status: 'completed',
    error: null,
    incomplete_details: null,
    output: options.output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: options.tools,
    usage: {
      input_tokens: usage.input_tokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: usage.output_tokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: usage.total_tokens,
    },
  };
}

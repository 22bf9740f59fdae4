import { randomBytes } from 'node:crypto';
import type { ToolCall } from '../../core/tool-call.js';
import { toToolCall, type ToolCallParser } from '../../environments/tool-call-parser.js';
import type { Generation } from './generator.js';

export interface AssistantReply {
  message: { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] };
  finish_reason: 'stop' | 'length' | 'tool_calls';
}

/**
 * The chat choice's message. With a tool-call parser (vLLM's `--tool-call-parser`) and tools offered,
 * the calls the model wrote come back as `tool_calls`, the text around them as `content` (null when
 * there is none), and a reply that calls tools finishes with `tool_calls`, as vLLM answers. Without
 * one, the text comes back as written, markup and all (vLLM without `--enable-auto-tool-choice`).
 */
export function assistantReply(generation: Generation, parser: ToolCallParser | undefined, parseTools: boolean): AssistantReply {
  const raw = { message: { role: 'assistant' as const, content: generation.text }, finish_reason: generation.finish };
  if (!parser || !parseTools) return raw;
  const turn = parser.parse(generation.text, 0);
  if (turn.blocks.length === 0) return raw;
  return {
    message: {
      role: 'assistant',
      content: turn.text === '' ? null : turn.text,
      tool_calls: turn.blocks.map((block) => ({ ...toToolCall(block), id: callId() })),
    },
    finish_reason: generation.finish === 'length' ? 'length' : 'tool_calls',
  };
}

/** Unique per call, as OpenAI's are: clients match tool results to calls by id across a whole conversation. */
const callId = () => `call_${randomBytes(12).toString('hex')}`;

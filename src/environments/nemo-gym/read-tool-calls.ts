import type { Message } from '../../core/message.js';
import type { IdentifiedToolCallBlock, ToolCallParser } from '../tool-call-parser.js';
import { splitThinking } from './response-object.js';

/**
 * The tool calls of the conversation's last (sampled) turn, outside its `<think>` block, with ids from
 * its place among the assistant turns: the same ids `responseOutput` gives them.
 */
export function lastTurnToolCalls(messages: readonly Message[], parser: ToolCallParser): IdentifiedToolCallBlock[] {
  const last = messages.at(-1);
  if (last?.role !== 'assistant') return [];
  const turn = messages.filter((message) => message.role === 'assistant').length - 1;
  return parser.parse(splitThinking(last.content).text, turn).blocks;
}

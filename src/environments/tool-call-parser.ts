import type { ToolCall } from '../core/tool-call.js';

/** One call a model wrote in its text. */
export interface ParsedToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** One tool-call block: a call, or why it is not one (with the tool's name when it could still be read). */
export type ToolCallBlock = { call: ParsedToolCall } | { error: string; name?: string };

/** A block of one assistant turn, named so the `tool` message answering it can say which call it answers. */
export type IdentifiedToolCallBlock = ToolCallBlock & {
  /** `call_<turn>_<i>`: the same on every run of the same conversation, unlike a random id. */
  id: string;
  /** The block's text between its markers, as the model wrote it. */
  source: string;
};

/** An assistant turn read for tool calls. */
export interface ParsedTurn {
  /** The turn's text outside the call markup, trimmed: what a Responses `message` item shows. */
  text: string;
  /** Every block in order; a malformed one is an error block, never skipped silently. */
  blocks: IdentifiedToolCallBlock[];
}

/**
 * Reads the tool calls a model wrote in the text of one turn. One per model family's format; the
 * text itself is never changed (it is what was sampled), only read.
 */
export interface ToolCallParser {
  readonly name: string;
  readonly description: string;
  /** `turn` is the number of assistant messages before this one in the conversation: it makes the call ids. */
  parse(text: string, turn: number): ParsedTurn;
}

const HERMES_BLOCK = /<tool_call>([\s\S]*?)<\/tool_call>/g;

/** Hermes / Qwen: `<tool_call>{"name": …, "arguments": {…}}</tool_call>`, arguments an object or a JSON string of one. */
export const hermesToolCallParser: ToolCallParser = {
  name: 'hermes',
  description: 'Hermes / Qwen2.5 / Qwen3: <tool_call>{"name": …, "arguments": {…}}</tool_call>',
  parse(text, turn) {
    const blocks = [...text.matchAll(HERMES_BLOCK)].map((match, i) => {
      const source = match[1]!.trim();
      return { ...readHermesBlock(source), id: `call_${turn}_${i}`, source };
    });
    return { text: text.replace(HERMES_BLOCK, '').trim(), blocks };
  },
};

function readHermesBlock(body: string): ToolCallBlock {
  let name: string | undefined;
  try {
    const parsed = JSON.parse(body) as { name?: unknown; arguments?: unknown };
    if (typeof parsed.name === 'string') name = parsed.name;
    const args = typeof parsed.arguments === 'string' ? (JSON.parse(parsed.arguments) as unknown) : (parsed.arguments ?? {});
    if (name === undefined || typeof args !== 'object' || args === null || Array.isArray(args))
      throw new Error('expected {"name": string, "arguments": object}');
    return { call: { name, arguments: args as Record<string, unknown> } };
  } catch (error) {
    // A name the JSON parser could not reach may still be legible: the answer then names the tool the model meant.
    name ??= /"name"\s*:\s*"([^"\\]+)"/.exec(body)?.[1];
    return { error: `invalid tool call ${JSON.stringify(body.slice(0, 80))}: ${(error as Error).message}`, ...(name === undefined ? {} : { name }) };
  }
}

/**
 * The `<tool_call>{"name": …, "arguments": {…}}</tool_call>` blocks (Hermes / Qwen format) of a text,
 * in order. A block that is not valid JSON of that shape is an error block, never skipped silently.
 */
export function parseHermesToolCalls(text: string): ToolCallBlock[] {
  return hermesToolCallParser.parse(text, 0).blocks.map(({ id: _id, source: _source, ...block }) => block);
}

/** A block as a chat tool call: valid calls with their arguments as JSON, malformed ones with the text the model wrote. */
export function toToolCall(block: IdentifiedToolCallBlock): ToolCall {
  const name = 'call' in block ? block.call.name : (block.name ?? '');
  const args = 'call' in block ? JSON.stringify(block.call.arguments) : block.source;
  return { id: block.id, type: 'function', function: { name, arguments: args } };
}

/** The tool-call formats gymnast reads, by name. */
export const toolCallParsers: readonly ToolCallParser[] = [hermesToolCallParser];

export function findToolCallParser(name: string): ToolCallParser | undefined {
  return toolCallParsers.find((parser) => parser.name === name);
}

/** One call a model wrote in its text. */
export interface ParsedToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** One `<tool_call>` block: a call, or why it is not one. */
export type ToolCallBlock = { call: ParsedToolCall } | { error: string };

/**
 * The `<tool_call>{"name": …, "arguments": {…}}</tool_call>` blocks (Hermes / Qwen format) of a text,
 * in order. A block that is not valid JSON of that shape is an error block, never skipped silently.
 */
export function parseHermesToolCalls(text: string): ToolCallBlock[] {
  return [...text.matchAll(/<tool_call>([\s\S]*?)<\/tool_call>/g)].map((match) => {
    const body = match[1]!.trim();
    try {
      const parsed = JSON.parse(body) as { name?: unknown; arguments?: unknown };
      const args = typeof parsed.arguments === 'string' ? (JSON.parse(parsed.arguments) as unknown) : (parsed.arguments ?? {});
      if (typeof parsed.name !== 'string' || typeof args !== 'object' || args === null || Array.isArray(args)) throw new Error('expected {"name": string, "arguments": object}');
      return { call: { name: parsed.name, arguments: args as Record<string, unknown> } };
    } catch (error) {
      return { error: `invalid tool call ${JSON.stringify(body.slice(0, 80))}: ${(error as Error).message}` };
    }
  });
}

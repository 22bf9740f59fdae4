import type { AssistantReply } from './assistant-reply.js';
import type { TokenPiece } from './token-pieces.js';

/** What every chunk of one streamed response shares (OpenAI repeats it on each). */
export interface ChunkHead {
  id: string;
  created: number;
  model: string;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** How a route asked for one streamed choice to be written. */
export interface StreamedChoice {
  index: number;
  pieces: TokenPiece[];
  /** The choice's last chunk carries these (`stop_reason` or SGLang's `matched_stop`). */
  finish: Record<string, unknown> & { finish_reason: string };
  /** The logprobs field of a chunk carrying these pieces, or undefined when none were asked for. */
  logprobs: ((pieces: TokenPiece[]) => unknown) | undefined;
  /** vLLM's `token_ids` on each chunk's choice, when `return_token_ids`. */
  tokenIds: boolean;
}

/**
 * A chat completion as `chat.completion.chunk`s, as OpenAI streams it: per choice a first chunk with
 * the role, then one chunk per token with its text as `delta.content`, the last one with the finish
 * reason; choices one after the other (each chunk names its `index`). A reply that calls tools comes
 * as one chunk with the calls, as they can be read only from the whole text. With `usage`
 * (`stream_options.include_usage`) every chunk has `usage: null` and a last chunk with no choices has the usage.
 */
export function chatCompletionChunks(head: ChunkHead, choices: readonly (StreamedChoice & { reply: AssistantReply })[], usage: Usage | undefined, firstExtra: Record<string, unknown> = {}): unknown[] {
  const chunk = (choice: Record<string, unknown>) => ({ ...head, object: 'chat.completion.chunk', choices: [choice], ...(usage ? { usage: null } : {}) });
  const chunks: Record<string, unknown>[] = [];
  for (const choice of choices) {
    chunks.push(chunk({ index: choice.index, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }));
    const { tool_calls: calls, content } = choice.reply.message;
    const groups = calls ? [choice.pieces] : choice.pieces.map((piece) => [piece]);
    if (groups.length === 0) groups.push([]);
    groups.forEach((pieces, g) => {
      const last = g === groups.length - 1;
      const delta = calls ? { content, tool_calls: calls.map((call, index) => ({ index, ...call })) } : { content: pieces.map((piece) => piece.text).join('') };
      chunks.push(
        chunk({
          index: choice.index,
          delta,
          logprobs: choice.logprobs ? choice.logprobs(pieces) : null,
          ...(last ? choice.finish : { finish_reason: null }),
          ...(choice.tokenIds ? { token_ids: pieces.map((piece) => piece.tokenId) } : {}),
        }),
      );
    });
  }
  if (chunks[0]) Object.assign(chunks[0], firstExtra);
  if (usage) chunks.push({ ...head, object: 'chat.completion.chunk', choices: [], usage });
  return chunks;
}

/**
 * A completion as `text_completion` chunks, as OpenAI and vLLM stream it: one chunk per token with
 * its `text` (an echoed prompt comes first, in a chunk of its own), the last with the finish reason,
 * then the usage chunk when asked for.
 */
export function completionChunks(head: ChunkHead, choices: readonly (StreamedChoice & { echo: string; promptTokenIds: number[] | undefined })[], usage: Usage | undefined): unknown[] {
  const chunk = (choice: Record<string, unknown>) => ({ ...head, object: 'text_completion', choices: [choice], ...(usage ? { usage: null } : {}) });
  const chunks: unknown[] = [];
  for (const choice of choices) {
    // vLLM sends the prompt's ids once, on the choice's first chunk.
    const prompt = choice.promptTokenIds ? { prompt_token_ids: choice.promptTokenIds } : {};
    if (choice.echo !== '') chunks.push(chunk({ index: choice.index, text: choice.echo, logprobs: null, finish_reason: null, ...prompt }));
    const groups = choice.pieces.length === 0 ? [[]] : choice.pieces.map((piece) => [piece]);
    groups.forEach((pieces, g) => {
      const last = g === groups.length - 1;
      chunks.push(
        chunk({
          index: choice.index,
          text: pieces.map((piece) => piece.text).join(''),
          logprobs: choice.logprobs ? choice.logprobs(pieces) : null,
          ...(last ? choice.finish : { finish_reason: null }),
          ...(choice.tokenIds ? { token_ids: pieces.map((piece) => piece.tokenId) } : {}),
          ...(g === 0 && choice.echo === '' ? prompt : {}),
        }),
      );
    });
  }
  if (usage) chunks.push({ ...head, object: 'text_completion', choices: [], usage });
  return chunks;
}

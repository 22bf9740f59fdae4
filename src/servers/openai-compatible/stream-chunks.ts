import type { AssistantReply } from './assistant-reply.js';
import type { Generation } from './generator.js';
import type { GenerationStep } from './sampling.js';
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

/** A step of choice `index` (choices are sampled one after another). */
export type ChoiceStep = GenerationStep & { index: number };

/** How a route asked for its choices to be written, chunk by chunk. */
export interface StreamPlan {
  /** The choice's last chunk carries these (`finish_reason`, and `stop_reason` or SGLang's `matched_stop`). */
  finish: (generation: Generation) => Record<string, unknown> & { finish_reason: string };
  /** The logprobs field of a chunk carrying these pieces, or undefined when none were asked for. */
  logprobs: ((pieces: TokenPiece[]) => unknown) | undefined;
  /** vLLM's `token_ids` on each chunk's choice, when `return_token_ids`. */
  tokenIds: boolean;
  /** With `stream_options.include_usage`: the usage of the finished choices, sent in a last chunk. */
  usage: ((generations: Generation[]) => Usage) | undefined;
}

export interface ChatStreamPlan extends StreamPlan {
  /** Given the reply already read for tool calls, the finish fields come from it rather than from a second read. */
  finish: (generation: Generation, answer?: AssistantReply) => Record<string, unknown> & { finish_reason: string };
  /** Set when replies are read for tool calls: the calls are read from a choice's whole text, so it is sent at its end. */
  reply: ((generation: Generation) => AssistantReply) | undefined;
  /** Fields for the stream's first chunk (vLLM's `prompt_token_ids`). */
  firstExtra: Record<string, unknown>;
}

/**
 * A chat completion as `chat.completion.chunk`s, as OpenAI streams it, each sent as soon as its token
 * is sampled: per choice a first chunk with the role, one chunk per token with its text as
 * `delta.content` (its id and logprob when asked), and a last chunk with the finish reason (and any text
 * held back to the end); choices one after the other, each chunk naming its `index`. A reply read for
 * tool calls is held to its end: one chunk with the calls, or its tokens' chunks when it called none.
 * With `usage` every chunk has `usage: null` and a last chunk with no choices has the usage.
 */
export async function* chatCompletionChunks(head: ChunkHead, steps: AsyncIterable<ChoiceStep>, plan: ChatStreamPlan): AsyncGenerator<unknown, void, undefined> {
  const chunk = (choice: Record<string, unknown>) => ({ ...head, object: 'chat.completion.chunk', choices: [choice], ...(plan.usage ? { usage: null } : {}) });
  const tokensChunk = (index: number, pieces: TokenPiece[], delta: Record<string, unknown>, finish: Record<string, unknown>) =>
    chunk({
      index,
      delta,
      logprobs: plan.logprobs ? plan.logprobs(pieces) : null,
      ...finish,
      ...(plan.tokenIds ? { token_ids: pieces.map((piece) => piece.tokenId) } : {}),
    });
  const textChunk = (index: number, piece: TokenPiece) => tokensChunk(index, [piece], { content: piece.text }, { finish_reason: null });
  const finished: Generation[] = [];
  let held: TokenPiece[] = [];
  let current = -1;
  for await (const step of steps) {
    const { index } = step;
    if (index !== current) {
      const role = chunk({ index, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null });
      yield current < 0 ? Object.assign(role, plan.firstExtra) : role;
      current = index;
    }
    if (step.piece) {
      if (plan.reply) held.push(step.piece);
      else yield textChunk(index, step.piece);
      continue;
    }
    const { generation, rest } = step;
    finished.push(generation);
    const answer = plan.reply?.(generation);
    const finish = plan.finish(generation, answer);
    const message = answer?.message;
    if (message?.tool_calls)
      yield tokensChunk(
        index,
        held,
        { content: message.content, tool_calls: message.tool_calls.map((call, position) => ({ index: position, ...call })) },
        finish,
      );
    else {
      // No call after all: the held tokens go out a chunk each, as they would have unread.
      for (const piece of held) yield textChunk(index, piece);
      yield tokensChunk(index, [], rest === '' ? {} : { content: rest }, finish);
    }
    held = [];
  }
  if (plan.usage) yield { ...head, object: 'chat.completion.chunk', choices: [], usage: plan.usage(finished) };
}

export interface CompletionStreamPlan extends StreamPlan {
  /** The choice's echoed prompt text ('' when not echoing): a chunk of its own before the completion's. */
  echo: (index: number) => string;
  /** vLLM's `prompt_token_ids`, on the choice's first chunk, when `return_token_ids`. */
  promptTokenIds: (index: number) => number[] | undefined;
}

/**
 * A completion as `text_completion` chunks, as OpenAI and vLLM stream it, each sent as soon as its
 * token is sampled: one chunk per token with its `text` (an echoed prompt comes first, in a chunk of its
 * own), a last one with the finish reason, then the usage chunk when asked for.
 */
export async function* completionChunks(
  head: ChunkHead,
  steps: AsyncIterable<ChoiceStep>,
  plan: CompletionStreamPlan,
): AsyncGenerator<unknown, void, undefined> {
  const chunk = (choice: Record<string, unknown>) => ({ ...head, object: 'text_completion', choices: [choice], ...(plan.usage ? { usage: null } : {}) });
  const finished: Generation[] = [];
  let current = -1;
  /** vLLM sends the prompt's ids once, on the choice's first chunk. */
  let prompt: Record<string, unknown> = {};
  for await (const step of steps) {
    const { index } = step;
    if (index !== current) {
      current = index;
      const ids = plan.promptTokenIds(index);
      prompt = ids ? { prompt_token_ids: ids } : {};
      const echo = plan.echo(index);
      if (echo !== '') {
        yield chunk({ index, text: echo, logprobs: null, finish_reason: null, ...prompt });
        prompt = {};
      }
    }
    const pieces = step.piece ? [step.piece] : [];
    if (step.generation) finished.push(step.generation);
    yield chunk({
      index,
      text: step.piece ? step.piece.text : step.rest,
      logprobs: plan.logprobs ? plan.logprobs(pieces) : null,
      ...(step.generation ? plan.finish(step.generation) : { finish_reason: null }),
      ...(plan.tokenIds ? { token_ids: pieces.map((piece) => piece.tokenId) } : {}),
      ...prompt,
    });
    prompt = {};
  }
  if (plan.usage) yield { ...head, object: 'text_completion', choices: [], usage: plan.usage(finished) };
}

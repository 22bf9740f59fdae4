import type { z } from 'zod';
import type { Message } from '../../core/message.js';
import type { ChatTemplateOptions } from '../../tokens/chat-template.js';
import { RequestRejectedError } from '../http-server/request-rejected-error.js';
import type { RouteContext } from './route.js';
import type { StreamOptions } from './request-wire-types.js';

/** The body as `schema` reads it, or a 400 naming every field that does not fit. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const [first] = parsed.error.issues;
  // Unknown fields are refused rather than ignored: a field the server does not read is a request it would not honour.
  if (first?.code === 'unrecognized_keys') {
    throw new RequestRejectedError(
      400,
      `unknown field${first.keys.length > 1 ? 's' : ''} ${first.keys.join(', ')}: this server does not read ${first.keys.length > 1 ? 'them' : 'it'}, so it cannot honour ${first.keys.length > 1 ? 'them' : 'it'}`,
      { param: [...first.path, first.keys[0]].join('.'), code: 'unknown_parameter' },
    );
  }
  throw new RequestRejectedError(400, parsed.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`).join('; '), {
    param: first?.path.join('.') || undefined,
  });
}

/** Ids outside the vocabulary would read past the model's embedding table: garbage, or NaN. */
export function checkTokenIds(context: RouteContext, field: string, ids: readonly number[]): void {
  const { vocabSize } = context.tokenizer;
  const bad = ids.findIndex((id) => id < 0 || (vocabSize !== undefined && id >= vocabSize));
  if (bad < 0) return;
  const range = vocabSize === undefined ? 'not negative' : `from 0 to ${vocabSize - 1}`;
  throw new RequestRejectedError(400, `${field}[${bad}] is ${ids[bad]}: token ids must be ${range}`, { param: field });
}

export function checkNotEmpty(ids: readonly number[]): void {
  if (ids.length === 0) throw new RequestRejectedError(400, 'prompt is empty', { param: 'prompt' });
}

/**
 * Refuses, before paying to encode it, text that no tokenization fits in the context beside
 * `completionTokens`: it takes at least `ceil(length / maxCharsPerToken)` tokens. Worded like vLLM's
 * context error, which clients classify as one. Tokenizers that promise no bound skip the check.
 */
export function checkTextFits(context: RouteContext, what: string, text: string, completionTokens: number): void {
  const perToken = context.tokenizer.maxCharsPerToken;
  if (perToken === undefined) return;
  const fewest = Math.ceil(text.length / perToken);
  if (fewest + completionTokens <= context.maxModelLen) return;
  throw new RequestRejectedError(
    400,
    `This model's maximum context length is ${context.maxModelLen} tokens. However, ${what} is ${text.length} characters, at least ${fewest} tokens (a token here covers at most ${perToken} characters)${completionTokens > 0 ? `, and ${completionTokens} more were asked for the completion` : ''}. Please reduce the length of the messages or completion.`,
    { code: 'context_length_exceeded' },
  );
}

/** vLLM's context check and its wording, which clients classify as a context-length error. */
export function checkContext(context: RouteContext, promptTokens: number, maxTokens: number): void {
  if (promptTokens + maxTokens <= context.maxModelLen) return;
  throw new RequestRejectedError(
    400,
    `This model's maximum context length is ${context.maxModelLen} tokens. However, you requested ${promptTokens + maxTokens} tokens (${promptTokens} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`,
    { code: 'context_length_exceeded' },
  );
}

/** The chat template's text; a template that refuses the conversation (raise_exception) is the client's 400. */
export function renderMessages(context: RouteContext, messages: readonly Message[], options: ChatTemplateOptions): string {
  try {
    return context.template.render(messages, options);
  } catch (error) {
    throw new RequestRejectedError(400, `the chat template refused these messages: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * The server never adds special tokens (no BOS) to what it encodes, and token prompts are used as
 * sent: `add_special_tokens: true` would be ignored, so only false (or leaving it out) is accepted.
 */
export function checkNoSpecialTokensAdded(value: boolean | undefined): void {
  if (value !== true) return;
  throw new RequestRejectedError(
    400,
    'add_special_tokens true is not supported: this server encodes text without adding special tokens and uses token prompts as sent; send false or leave it out',
    { param: 'add_special_tokens', code: 'unsupported_parameter' },
  );
}

/**
 * As vLLM: options for a stream that was not asked for are a mistake worth naming, not something to
 * ignore. Obfuscation pads stream events against size side channels; this server sends them unpadded.
 */
export function checkStreamOptions(request: { stream?: boolean | undefined; stream_options?: StreamOptions | undefined }): void {
  if (request.stream_options && !request.stream)
    throw new RequestRejectedError(400, 'stream_options can only be sent with stream true', { param: 'stream_options' });
  if (request.stream_options?.include_obfuscation) {
    throw new RequestRejectedError(
      400,
      'stream_options.include_obfuscation true is not supported: this server does not pad stream events; send false or leave it out',
      { param: 'stream_options.include_obfuscation', code: 'unsupported_parameter' },
    );
  }
}

/** The generator knows only the sampled token's logprob: alternatives asked for would be an empty list passed off as an answer. */
export function checkNoTopLogprobs(param: string, count: number): void {
  if (count === 0) return;
  throw new RequestRejectedError(400, `${param} is ${count}: this server returns only the sampled token's logprob, so ask for 0 alternatives`, {
    param,
    code: 'unsupported_parameter',
  });
}

/**
 * `parallel_tool_calls: false` asks for at most one call per reply. Nothing here can stop the model
 * writing several, so it is refused when the reply is read for tool calls; otherwise no reply carries
 * any call and it is kept trivially. True (OpenAI's default) is what the server does.
 */
export function checkParallelToolCalls(value: boolean | undefined, readsToolCalls: boolean): void {
  if (value !== false || !readsToolCalls) return;
  throw new RequestRejectedError(
    400,
    'parallel_tool_calls false is not supported: the model may write several calls in one reply, and this server returns every call it wrote; send true or leave it out',
    { param: 'parallel_tool_calls', code: 'unsupported_parameter' },
  );
}

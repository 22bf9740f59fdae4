import { z } from 'zod';
import { ChatTool } from '../../core/chat-tool.js';
import { ResponsesItem, ResponsesTool } from '../../core/responses-items.js';
import { ChatRequestMessage } from './chat-request-message.js';
import { openAiRequest, requestLabels } from './openai-request.js';
import { chatDefaults, completionDefaults, defaultOnlyFields, responsesDefaults, samplingDefaults } from './unsupported-parameters.js';

// The request bodies the OpenAI-compatible server reads, one schema per route that takes a body (the
// wire types, apart from the routes that act on them, as vercel/ai's openai-compatible provider keeps them).

/** Ranges as vLLM checks them: a value out of range is a 400 naming the parameter, never a silent garbage sample. */
export const TokenIds = z.array(z.number().int());
export const Temperature = z.number().nonnegative();
export const TopP = z.number().gt(0, 'top_p must be in (0, 1]').lte(1, 'top_p must be in (0, 1]');
export const TopK = z.number().int().gte(-1, 'top_k must be -1 or 0 (no limit) or at least 1');

/** `stream_options` as chat, completions and Responses take it: usage on request (not on Responses, whose last event has it). */
export const StreamOptions = z.strictObject({ include_usage: z.boolean().optional(), include_obfuscation: z.boolean().optional() });
export type StreamOptions = z.infer<typeof StreamOptions>;

/** The sampling fields completions and chat share. */
const Sampling = {
  seed: z.number().int().optional(),
  temperature: Temperature.optional(),
  top_p: TopP.optional(),
  top_k: TopK.optional(),
  /** Each choice is sampled on its own, with a seed derived from `seed` (see `choiceSeed`); 128 bounds the work one request can ask for. */
  n: z.number().int().min(1).max(128).default(1),
  stop: z.union([z.string(), z.array(z.string())]).optional(),
  stop_token_ids: TokenIds.optional(),
  include_stop_str_in_output: z.boolean().optional(),
  skip_special_tokens: z.boolean().optional(),
  return_token_ids: z.boolean().optional(),
  return_tokens_as_token_ids: z.boolean().optional(),
  stream: z.boolean().optional(),
  stream_options: StreamOptions.optional(),
};

/** Read strictly, null as not set (see `openAiRequest`). `user` is accepted: it labels the caller and asks nothing of the model. */
export const CompletionRequest = openAiRequest({
  model: z.string().optional(),
  /** One prompt (text or token ids) or a batch of them: each gets its own `n` choices. */
  prompt: z.union([z.string(), TokenIds, z.array(z.string()), z.array(TokenIds)]),
  max_tokens: z.number().int().positive().default(16),
  logprobs: z.number().int().nonnegative().optional(),
  add_special_tokens: z.boolean().optional(),
  /** Prepend the prompt's text to the completion's. */
  echo: z.boolean().optional(),
  /** Served only equal to `n`: see `checkBestOf`. */
  best_of: z.number().int().positive().optional(),
  user: z.string().optional(),
  ...Sampling,
  ...defaultOnlyFields(samplingDefaults),
  ...defaultOnlyFields(completionDefaults),
});
export type CompletionRequest = z.infer<typeof CompletionRequest>;

export const ChatRequest = openAiRequest({
  model: z.string().optional(),
  ...requestLabels,
  /** SGLang's name for `include_stop_str_in_output`. */
  no_stop_trim: z.boolean().optional(),
  add_generation_prompt: z.boolean().optional(),
  /** Render the last message open, for the model to go on writing it (vLLM's `continue_final_message`). */
  continue_final_message: z.boolean().optional(),
  ...defaultOnlyFields(samplingDefaults),
  ...defaultOnlyFields(chatDefaults),
  messages: z.array(ChatRequestMessage),
  tools: z.array(ChatTool).optional(),
  /** 'required' and a named function are refused: nothing here can make the model call a tool. */
  tool_choice: z.enum(['none', 'auto', 'required']).optional(),
  /** See `checkParallelToolCalls`. */
  parallel_tool_calls: z.boolean().optional(),
  max_tokens: z.number().int().positive().optional(),
  max_completion_tokens: z.number().int().positive().optional(),
  /** OpenAI's boolean; an integer (the legacy form) asks for logprobs with that many alternatives. */
  logprobs: z.union([z.boolean(), z.number().int().nonnegative()]).optional(),
  top_logprobs: z.number().int().nonnegative().optional(),
  return_prompt_token_ids: z.boolean().optional(),
  /** Extra variables for the chat template (`enable_thinking`), as vLLM passes them. */
  chat_template_kwargs: z.record(z.string(), z.unknown()).optional(),
  /** Only false: see `checkNoSpecialTokensAdded`. */
  add_special_tokens: z.boolean().optional(),
  ...Sampling,
});
export type ChatRequest = z.infer<typeof ChatRequest>;

/** Read strictly, as the OpenAI routes are: an unknown field, at the top or in `sampling_params`, is a 400 naming it. */
export const GenerateRequest = z.strictObject({
  input_ids: TokenIds,
  return_logprob: z.boolean().optional(),
  /** Where the returned logprobs start; only -1 (the output tokens alone): this server does not score the prompt. */
  logprob_start_len: z.literal(-1, { error: "logprob_start_len must be -1: this server does not score the prompt's tokens" }).optional(),
  /** SGLang's request id: it labels the request and asks nothing of the model. */
  rid: z.string().optional(),
  /** Answer with the ids read (`prompt_token_ids`, beside `output_ids`), as SGLang does. */
  return_prompt_token_ids: z.boolean().optional(),
  sampling_params: z
    .strictObject({
      max_new_tokens: z.number().int().positive().default(128),
      temperature: Temperature.optional(),
      top_p: TopP.optional(),
      top_k: TopK.optional(),
      stop: z.union([z.string(), z.array(z.string())]).optional(),
      stop_token_ids: TokenIds.optional(),
      no_stop_trim: z.boolean().optional(),
      skip_special_tokens: z.boolean().optional(),
      sampling_seed: z.number().int().optional(),
    })
    .default({ max_new_tokens: 128 }),
});

/** One object rather than a union, so an unknown field is a 400 naming it (see `parseBody`); exactly one of prompt and messages. */
export const TokenizeRequest = z
  .strictObject({
    model: z.string().optional(),
    prompt: z.string().optional(),
    messages: z.array(ChatRequestMessage).optional(),
    add_generation_prompt: z.boolean().optional(),
    tools: z.array(ChatTool).optional(),
    chat_template_kwargs: z.record(z.string(), z.unknown()).optional(),
    add_special_tokens: z.boolean().optional(),
  })
  .refine((request) => (request.prompt === undefined) !== (request.messages === undefined), { message: 'send exactly one of prompt and messages' });

export const DetokenizeRequest = z.object({ tokens: TokenIds });

/**
 * The Responses API request as this server reads it: strictly, like chat, null as not set (see
 * `openAiRequest`). Nothing is kept, so what would need a stored response, conversation or prompt is
 * served only at its default (see `responsesDefaults`).
 */
export const ResponsesRequest = openAiRequest({
  model: z.string().optional(),
  input: z.union([z.string(), z.array(ResponsesItem)]),
  /** A system message before the input, as OpenAI places it. */
  instructions: z.string().optional(),
  tools: z.array(ResponsesTool).optional(),
  tool_choice: z.enum(['none', 'auto', 'required']).optional(),
  /** See `checkParallelToolCalls`. */
  parallel_tool_calls: z.boolean().optional(),
  max_output_tokens: z.number().int().positive().optional(),
  /** Bounds the calls to built-in tools; this server runs none, so every bound holds. */
  max_tool_calls: z.number().int().nonnegative().optional(),
  temperature: Temperature.optional(),
  top_p: TopP.optional(),
  top_logprobs: z.number().int().nonnegative().optional(),
  stream: z.boolean().optional(),
  /** The Responses API's stream options have no `include_usage`: its last event carries the usage. */
  stream_options: StreamOptions.omit({ include_usage: true }).optional(),
  ...requestLabels,
  ...defaultOnlyFields(responsesDefaults),
});

import { z } from 'zod';
import { ChatTool } from '../../core/chat-tool.js';
import { Message } from '../../core/message.js';
import type { ChatTemplate } from '../../tokens/chat-template.js';
import type { Tokenizer } from '../../tokens/tokenizer.js';
import type { Generation, Generator } from './generator.js';

export interface RouteContext {
  tokenizer: Tokenizer;
  template: ChatTemplate;
  /** Which server to imitate where vLLM and SGLang differ. */
  flavor: 'vllm' | 'sglang';
  model: string;
  maxModelLen: number;
  generate: Generator;
}

export interface RouteResult {
  status: number;
  body: unknown;
}

type Route = (context: RouteContext, body: unknown, signal: AbortSignal) => RouteResult | Promise<RouteResult>;

const Sampling = {
  seed: z.number().int().optional(),
  temperature: z.number().nonnegative().optional(),
  top_p: z.number().optional(),
  top_k: z.number().int().optional(),
  stop: z.union([z.string(), z.array(z.string())]).optional(),
  stop_token_ids: z.array(z.number().int()).optional(),
  include_stop_str_in_output: z.boolean().optional(),
  skip_special_tokens: z.boolean().optional(),
  return_token_ids: z.boolean().optional(),
  return_tokens_as_token_ids: z.boolean().optional(),
};

const CompletionRequest = z.object({ prompt: z.union([z.array(z.number().int()), z.string()]), max_tokens: z.number().int().positive().default(16), logprobs: z.number().int().nullable().optional(), add_special_tokens: z.boolean().optional(), ...Sampling });
const ChatRequest = z.object({
  messages: z.array(Message),
  tools: z.array(ChatTool).optional(),
  max_tokens: z.number().int().positive().optional(),
  max_completion_tokens: z.number().int().positive().optional(),
  logprobs: z.boolean().optional(),
  return_prompt_token_ids: z.boolean().optional(),
  chat_template_kwargs: z.record(z.string(), z.unknown()).optional(),
  ...Sampling,
});
const GenerateRequest = z.object({
  input_ids: z.array(z.number().int()),
  return_logprob: z.boolean().optional(),
  sampling_params: z.object({ max_new_tokens: z.number().int().positive().default(128), stop: z.union([z.string(), z.array(z.string())]).optional(), stop_token_ids: z.array(z.number().int()).optional(), no_stop_trim: z.boolean().optional(), skip_special_tokens: z.boolean().optional(), sampling_seed: z.number().int().optional() }).default({ max_new_tokens: 128 }),
});
const TokenizeRequest = z.union([z.object({ prompt: z.string() }), z.object({ messages: z.array(Message), add_generation_prompt: z.boolean().default(true), tools: z.array(ChatTool).optional() })]);
const DetokenizeRequest = z.object({ tokens: z.array(z.number().int()) });

const asList = (stop: string | string[] | undefined) => (stop === undefined ? [] : typeof stop === 'string' ? [stop] : stop);
const badRequest = (message: string): RouteResult => ({ status: 400, body: { object: 'error', message, type: 'BadRequestError', code: 400 } });

function parse<T>(schema: z.ZodType<T>, body: unknown): { value: T } | { error: RouteResult } {
  const parsed = schema.safeParse(body);
  return parsed.success ? { value: parsed.data } : { error: badRequest(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')) };
}

/** vLLM's context check and its wording, which clients classify as a context-length error. */
function contextError(context: RouteContext, promptTokens: number, maxTokens: number): RouteResult | undefined {
  if (promptTokens + maxTokens <= context.maxModelLen) return undefined;
  return badRequest(
    `This model's maximum context length is ${context.maxModelLen} tokens. However, you requested ${promptTokens + maxTokens} tokens (${promptTokens} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`,
  );
}

interface RunOptions {
  maxTokens: number;
  seed?: number | undefined;
  temperature?: number | undefined;
  topP?: number | undefined;
  topK?: number | undefined;
  stop: string[];
  stopTokenIds: number[];
  includeStop: boolean;
  skipSpecial: boolean;
}

function run(context: RouteContext, promptIds: number[], options: RunOptions, signal: AbortSignal): Promise<Generation> {
  return context.generate(
    {
      promptIds,
      maxTokens: options.maxTokens,
      seed: options.seed,
      temperature: options.temperature ?? 1,
      topP: options.topP ?? 1,
      topK: options.topK !== undefined && options.topK > 0 ? options.topK : undefined,
      stop: options.stop,
      stopTokenIds: options.stopTokenIds,
      includeStopString: options.includeStop,
      skipSpecialTokens: options.skipSpecial,
    },
    signal,
  );
}

const usage = (prompt: number, completion: number) => ({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion });
const tokenLabel = (context: RouteContext, id: number, asIds: boolean | undefined) => (asIds ? `token_id:${id}` : context.tokenizer.decode([id]));

const completions: Route = async (context, body, signal) => {
  const parsed = parse(CompletionRequest, body);
  if ('error' in parsed) return parsed.error;
  const request = parsed.value;
  const promptIds = typeof request.prompt === 'string' ? context.tokenizer.encode(request.prompt) : request.prompt;
  const tooLong = contextError(context, promptIds.length, request.max_tokens);
  if (tooLong) return tooLong;
  const generation = await run(context, promptIds, { maxTokens: request.max_tokens, seed: request.seed, temperature: request.temperature, topP: request.top_p, topK: request.top_k, stop: asList(request.stop), stopTokenIds: request.stop_token_ids ?? [], includeStop: request.include_stop_str_in_output ?? false, skipSpecial: request.skip_special_tokens ?? true }, signal);
  const choice = {
    index: 0,
    text: generation.text,
    ...(request.return_token_ids ? { token_ids: generation.tokenIds, prompt_token_ids: promptIds } : {}),
    logprobs: request.logprobs === undefined || request.logprobs === null ? null : {
      tokens: generation.tokenIds.map((id) => tokenLabel(context, id, request.return_tokens_as_token_ids)),
      token_logprobs: generation.logprobs,
      top_logprobs: null,
      text_offset: [],
    },
    finish_reason: generation.finish,
    stop_reason: generation.stopReason,
  };
  return { status: 200, body: { id: 'cmpl-test', object: 'text_completion', model: context.model, choices: [choice], usage: usage(promptIds.length, generation.tokenIds.length) } };
};

const chatCompletions: Route = async (context, body, signal) => {
  const parsed = parse(ChatRequest, body);
  if ('error' in parsed) return parsed.error;
  const request = parsed.value;
  const text = context.template.render(request.messages, { addGenerationPrompt: true, ...(request.tools ? { tools: request.tools } : {}) });
  const promptIds = context.tokenizer.encode(text);
  const maxTokens = request.max_completion_tokens ?? request.max_tokens ?? context.maxModelLen - promptIds.length;
  const tooLong = contextError(context, promptIds.length, maxTokens);
  if (tooLong) return tooLong;
  const generation = await run(context, promptIds, { maxTokens, seed: request.seed, temperature: request.temperature, topP: request.top_p, topK: request.top_k, stop: asList(request.stop), stopTokenIds: request.stop_token_ids ?? [], includeStop: request.include_stop_str_in_output ?? false, skipSpecial: request.skip_special_tokens ?? true }, signal);
  const promptOnChoice = context.flavor === 'sglang' && request.return_prompt_token_ids;
  const choice = {
    index: 0,
    message: { role: 'assistant', content: generation.text },
    logprobs: request.logprobs ? { content: generation.tokenIds.map((id, j) => ({ token: tokenLabel(context, id, request.return_tokens_as_token_ids), logprob: generation.logprobs[j], bytes: null, top_logprobs: [] })) } : null,
    finish_reason: generation.finish,
    ...(context.flavor === 'sglang' ? { matched_stop: generation.stopReason } : { stop_reason: generation.stopReason }),
    ...(request.return_token_ids ? { token_ids: generation.tokenIds } : {}),
    ...(promptOnChoice ? { prompt_token_ids: promptIds } : {}),
  };
  const promptAtTop = context.flavor === 'vllm' && request.return_token_ids;
  return {
    status: 200,
    body: { id: 'chatcmpl-test', object: 'chat.completion', model: context.model, choices: [choice], ...(promptAtTop ? { prompt_token_ids: promptIds } : {}), usage: usage(promptIds.length, generation.tokenIds.length) },
  };
};

const sglangGenerate: Route = async (context, body, signal) => {
  const parsed = parse(GenerateRequest, body);
  if ('error' in parsed) return parsed.error;
  const { input_ids, sampling_params: params, return_logprob } = parsed.value;
  const tooLong = contextError(context, input_ids.length, params.max_new_tokens);
  if (tooLong) return tooLong;
  const generation = await run(context, input_ids, { maxTokens: params.max_new_tokens, seed: params.sampling_seed, stop: asList(params.stop), stopTokenIds: params.stop_token_ids ?? [], includeStop: params.no_stop_trim ?? false, skipSpecial: params.skip_special_tokens ?? true }, signal);
  const finishType = generation.finish === 'length' ? 'length' : 'stop';
  return {
    status: 200,
    body: {
      text: generation.text,
      output_ids: generation.tokenIds,
      meta_info: {
        id: 'gen-test',
        finish_reason: { type: finishType, ...(generation.stopReason === null ? {} : { matched: generation.stopReason }) },
        prompt_tokens: input_ids.length,
        completion_tokens: generation.tokenIds.length,
        ...(return_logprob ? { output_token_logprobs: generation.tokenIds.map((id, j) => [generation.logprobs[j], id, null]) } : {}),
      },
    },
  };
};

const tokenize: Route = (context, body) => {
  const parsed = parse(TokenizeRequest, body);
  if ('error' in parsed) return parsed.error;
  const request = parsed.value;
  const text = 'prompt' in request ? request.prompt : context.template.render(request.messages, { addGenerationPrompt: request.add_generation_prompt, ...(request.tools ? { tools: request.tools } : {}) });
  const tokens = context.tokenizer.encode(text);
  return { status: 200, body: { count: tokens.length, max_model_len: context.maxModelLen, tokens } };
};

const detokenize: Route = (context, body) => {
  const parsed = parse(DetokenizeRequest, body);
  if ('error' in parsed) return parsed.error;
  const text = context.tokenizer.decode(parsed.value.tokens);
  return { status: 200, body: context.flavor === 'sglang' ? { text } : { prompt: text } };
};

const models: Route = (context) => ({ status: 200, body: { object: 'list', data: [{ id: context.model, object: 'model', owned_by: 'gymnast', max_model_len: context.maxModelLen }] } });

export const routes: Record<string, Route> = {
  'GET /v1/models': models,
  'GET /health': () => ({ status: 200, body: {} }),
  'POST /v1/completions': completions,
  'POST /v1/chat/completions': chatCompletions,
  'POST /generate': sglangGenerate,
  'POST /tokenize': tokenize,
  'POST /detokenize': detokenize,
};

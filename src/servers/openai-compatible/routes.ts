import { z } from 'zod';
import { ChatTool } from '../../core/chat-tool.js';
import type { ToolCallParser } from '../../environments/tool-call-parser.js';
import type { ChatTemplate } from '../../tokens/chat-template.js';
import type { Tokenizer } from '../../tokens/tokenizer.js';
import type { Generation, Generator } from './generator.js';
import { RequestRejectedError } from '../http-server/request-rejected-error.js';
import { checkNoSpecialTokensAdded, checkNoTopLogprobs, checkParallelToolCalls, checkStreamOptions, checkTextFits, checkTokenIds, parseBody, renderMessages, StreamOptions } from './request-checks.js';
import { templateKwargs } from './template-kwargs.js';
import { checkRun, generateWhole, sample, Temperature, TokenIds, TopK, TopP, type RunOptions } from './sampling.js';
import { responses } from './responses-route.js';
import { renderChatPrompt } from './render-chat-prompt.js';
import { responseId, unixSeconds } from './response-id.js';
import { checkModel, modelCard, type ServedModel } from './served-model.js';
import { ChatRequestMessage, toMessage } from './chat-request-message.js';
import { assistantReply } from './assistant-reply.js';
import { chatDefaults, completionDefaults, defaultOnlyFields, refuseNonDefault, samplingDefaults } from './unsupported-parameters.js';
import { openAiRequest, requestLabels } from './openai-request.js';
import { mixSeed } from '../../util/seeded-random.js';
import type { TokenPiece } from './token-pieces.js';
import type { EventFraming } from '../http-server/send-event-stream.js';
import { chatCompletionChunks, completionChunks, type ChoiceStep } from './stream-chunks.js';

export interface RouteContext extends ServedModel {
  tokenizer: Tokenizer;
  template: ChatTemplate;
  /** Which server to imitate where vLLM and SGLang differ. */
  flavor: 'vllm' | 'sglang';
  generate: Generator;
  /** When the server started (unix seconds): the model's `created`. */
  startedAt: number;
  /** Reads tool calls out of chat replies when the request offers tools (vLLM's `--tool-call-parser`); none returns the text as written. */
  toolCallParser: ToolCallParser | undefined;
}

export interface RouteResult {
  status: number;
  /** The JSON answer; absent for a stream. */
  body?: unknown;
  /**
   * Present when the client asked for `stream: true`: the events to send as server-sent events, each
   * as soon as the generation yields it. Iterating samples; stopping the iteration stops the sampling.
   */
  events?: AsyncIterable<unknown>;
  /** How the events are framed (default: chat's `data:` lines and `[DONE]`). */
  framing?: EventFraming;
}

/** A route answers with a result, or throws `RequestRejectedError` for a request it refuses. */
export type Route = (context: RouteContext, body: unknown, signal: AbortSignal) => RouteResult | Promise<RouteResult>;

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
const CompletionRequest = openAiRequest({
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
const ChatRequest = openAiRequest({
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
/** Read strictly, as the OpenAI routes are: an unknown field, at the top or in `sampling_params`, is a 400 naming it. */
const GenerateRequest = z.strictObject({
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
const TokenizeRequest = z
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
const DetokenizeRequest = z.object({ tokens: TokenIds });

const asList = (stop: string | string[] | undefined) => (stop === undefined ? [] : typeof stop === 'string' ? [stop] : stop);

/**
 * The seed of choice `index` of `n`: the first keeps the request's seed (so n = 1 is unchanged), the
 * others get seeds derived from it, so a seeded request is reproducible and its choices differ.
 */
const choiceSeed = (seed: number | undefined, index: number) => (seed === undefined || index === 0 ? seed : mixSeed(seed, index));

/**
 * The `n` choices of each prompt, sampled one after another (the generator is one model: running them at
 * once would not be faster), as steps: what a stream sends as it comes and an unstreamed answer waits
 * for. As vLLM orders them: the n choices of the first prompt, then those of the next. Every prompt is
 * checked before any is sampled.
 */
function sampleChoices(context: RouteContext, prompts: number[][], options: RunOptions, n: number, signal: AbortSignal): AsyncGenerator<ChoiceStep, void, undefined> {
  for (const promptIds of prompts) checkRun(context, promptIds, options);
  return (async function* () {
    for (const [p, promptIds] of prompts.entries()) {
      for (let j = 0; j < n; j++) {
        for await (const step of sample(context, promptIds, { ...options, seed: choiceSeed(options.seed, j) }, signal)) yield { index: p * n + j, ...step };
      }
    }
  })();
}

/** Every choice's finished generation, in order: the steps an unstreamed answer waits for. */
async function generations(steps: AsyncIterable<ChoiceStep>): Promise<Generation[]> {
  const finished: Generation[] = [];
  for await (const step of steps) if (step.generation) finished.push(step.generation);
  return finished;
}

const completionTokens = (generations: readonly Generation[]) => generations.reduce((sum, generation) => sum + generation.tokenIds.length, 0);

/** `best_of` samples that many and returns the `n` likeliest; this server returns every choice it samples, so it serves only best_of equal to n. */
function checkBestOf(bestOf: number | undefined, n: number): void {
  if (bestOf === undefined || bestOf === n) return;
  throw new RequestRejectedError(400, `best_of ${bestOf} is not supported: this server returns every choice it samples, so best_of must equal n (${n}) or be left out`, { param: 'best_of', code: 'unsupported_parameter' });
}

const usage = (prompt: number, completion: number) => ({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion });
const tokenLabel = (context: RouteContext, id: number, asIds: boolean | undefined) => (asIds ? `token_id:${id}` : context.tokenizer.decode([id]));

const completions: Route = async (context, body, signal) => {
  const request = parseBody(CompletionRequest, body);
  checkModel(context, request.model);
  refuseNonDefault(samplingDefaults, request);
  refuseNonDefault(completionDefaults, request);
  checkBestOf(request.best_of, request.n);
  checkNoSpecialTokensAdded(request.add_special_tokens);
  checkStreamOptions(request);
  checkNoTopLogprobs('logprobs', request.logprobs ?? 0);
  if (request.echo && request.logprobs !== undefined) {
    throw new RequestRejectedError(400, "echo with logprobs would need the prompt's logprobs, which this server does not score", { param: 'echo', code: 'unsupported_parameter' });
  }
  const prompts = batchOf(request.prompt);
  const batched = prompts === (request.prompt as unknown);
  const promptIds = prompts.map((prompt, i) => {
    const field = batched ? `prompt[${i}]` : 'prompt';
    if (typeof prompt === 'string') checkTextFits(context, `the ${field}`, prompt, request.max_tokens);
    else checkTokenIds(context, field, prompt);
    return typeof prompt === 'string' ? context.tokenizer.encode(prompt) : prompt;
  });
  const steps = sampleChoices(context, promptIds, runOptions(request, request.max_tokens, request.include_stop_str_in_output), request.n, signal);
  const promptOf = (index: number) => Math.floor(index / request.n);
  const echo = (index: number) => (!request.echo ? '' : typeof prompts[promptOf(index)] === 'string' ? (prompts[promptOf(index)] as string) : context.tokenizer.decode(promptIds[promptOf(index)]!));
  const finish = (generation: Generation) => ({ finish_reason: generation.finish, stop_reason: generation.stopReason });
  const logprobs = (ids: readonly number[], values: readonly number[]) => ({ tokens: ids.map((id) => tokenLabel(context, id, request.return_tokens_as_token_ids)), token_logprobs: values, top_logprobs: null, text_offset: [] });
  const promptTokens = promptIds.reduce((sum, ids) => sum + ids.length, 0);
  const head = { id: responseId('cmpl'), created: unixSeconds(), model: context.model };
  if (request.stream) {
    const plan = {
      echo,
      promptTokenIds: (index: number) => (request.return_token_ids ? promptIds[promptOf(index)] : undefined),
      finish,
      logprobs: request.logprobs === undefined ? undefined : (pieces: TokenPiece[]) => logprobs(pieces.map((piece) => piece.tokenId), pieces.map((piece) => piece.logprob)),
      tokenIds: request.return_token_ids ?? false,
      usage: request.stream_options?.include_usage ? (finished: Generation[]) => usage(promptTokens, completionTokens(finished)) : undefined,
    };
    return { status: 200, events: completionChunks(head, steps, plan) };
  }
  const generated = await generations(steps);
  const choices = generated.map((generation, index) => ({
    index,
    text: echo(index) + generation.text,
    ...(request.return_token_ids ? { token_ids: generation.tokenIds, prompt_token_ids: promptIds[promptOf(index)] } : {}),
    logprobs: request.logprobs === undefined ? null : logprobs(generation.tokenIds, generation.logprobs),
    ...finish(generation),
  }));
  return { status: 200, body: { ...head, object: 'text_completion', choices, usage: usage(promptTokens, completionTokens(generated)) } };
};

/** A completions prompt as a list: one text or id list (an empty list too) is a batch of one, a new array; a batch is returned as sent. */
function batchOf(prompt: string | number[] | string[] | number[][]): (string | number[])[] {
  if (typeof prompt === 'string' || prompt.length === 0 || typeof prompt[0] === 'number') return [prompt as string | number[]];
  return prompt as (string | number[])[];
}

/** The sampling options a completions or chat request asks for. */
function runOptions(request: z.infer<typeof CompletionRequest> | z.infer<typeof ChatRequest>, maxTokens: number, includeStop: boolean | undefined): RunOptions {
  return { maxTokens, seed: request.seed, temperature: request.temperature, topP: request.top_p, topK: request.top_k, stop: asList(request.stop), stopTokenIds: request.stop_token_ids ?? [], includeStop: includeStop ?? false, skipSpecial: request.skip_special_tokens ?? true };
}

const chatCompletions: Route = async (context, body, signal) => {
  const request = parseBody(ChatRequest, body);
  checkModel(context, request.model);
  refuseNonDefault(samplingDefaults, request);
  refuseNonDefault(chatDefaults, request);
  checkNoSpecialTokensAdded(request.add_special_tokens);
  checkStreamOptions(request);
  if (request.tool_choice === 'required') throw new RequestRejectedError(400, "tool_choice 'required' cannot be enforced by this server: send 'auto' or 'none'", { param: 'tool_choice', code: 'unsupported_parameter' });
  const topLogprobs = request.top_logprobs ?? (typeof request.logprobs === 'number' ? request.logprobs : 0);
  checkNoTopLogprobs(typeof request.top_logprobs === 'number' || typeof request.logprobs !== 'number' ? 'top_logprobs' : 'logprobs', topLogprobs);
  const wantsLogprobs = request.logprobs === true || typeof request.logprobs === 'number';
  const parseTools = (request.tools?.length ?? 0) > 0 && request.tool_choice !== 'none';
  const readsToolCalls = parseTools && context.toolCallParser !== undefined;
  checkParallelToolCalls(request.parallel_tool_calls, readsToolCalls);
  const text = renderChatPrompt(context, request.messages.map(toMessage), request.tools, { addGenerationPrompt: request.add_generation_prompt, continueFinalMessage: request.continue_final_message, chatTemplateKwargs: request.chat_template_kwargs });
  const askedTokens = request.max_completion_tokens ?? request.max_tokens;
  checkTextFits(context, 'the rendered conversation', text, askedTokens ?? 1);
  const promptIds = context.tokenizer.encode(text);
  // Unasked, the completion gets the rest of the context, and at least one token: a prompt that fills it is refused.
  const maxTokens = askedTokens ?? Math.max(1, context.maxModelLen - promptIds.length);
  const steps = sampleChoices(context, [promptIds], runOptions(request, maxTokens, request.include_stop_str_in_output ?? request.no_stop_trim), request.n, signal);
  const reply = (generation: Generation) => assistantReply(generation, context.toolCallParser, parseTools);
  const finish = (generation: Generation, answer = reply(generation)) => ({ finish_reason: answer.finish_reason, ...(context.flavor === 'sglang' ? { matched_stop: generation.stopReason } : { stop_reason: generation.stopReason }) });
  const logprobs = (ids: readonly number[], values: readonly number[]) => ({ content: ids.map((id, j) => ({ token: tokenLabel(context, id, request.return_tokens_as_token_ids), logprob: values[j], bytes: null, top_logprobs: [] })) });
  const promptOnChoice = context.flavor === 'sglang' && request.return_prompt_token_ids;
  const promptAtTop = context.flavor === 'vllm' && request.return_token_ids;
  const head = { id: responseId('chatcmpl'), created: unixSeconds(), model: context.model };
  if (request.stream) {
    const plan = {
      // Without a parser, or with tools not read, the reply is its text as written: it streams token by token.
      reply: readsToolCalls ? reply : undefined,
      finish,
      logprobs: wantsLogprobs ? (pieces: TokenPiece[]) => logprobs(pieces.map((piece) => piece.tokenId), pieces.map((piece) => piece.logprob)) : undefined,
      tokenIds: request.return_token_ids ?? false,
      usage: request.stream_options?.include_usage ? (finished: Generation[]) => usage(promptIds.length, completionTokens(finished)) : undefined,
      // vLLM sends the prompt's ids once, on the first chunk; SGLang on each choice's.
      firstExtra: promptAtTop ? { prompt_token_ids: promptIds } : {},
    };
    return { status: 200, events: chatCompletionChunks(head, steps, plan) };
  }
  const generated = await generations(steps);
  const choices = generated.map((generation, index) => {
    const answer = reply(generation);
    return {
      index,
      message: answer.message,
      logprobs: wantsLogprobs ? logprobs(generation.tokenIds, generation.logprobs) : null,
      ...finish(generation, answer),
      ...(request.return_token_ids ? { token_ids: generation.tokenIds } : {}),
      ...(promptOnChoice ? { prompt_token_ids: promptIds } : {}),
    };
  });
  return { status: 200, body: { ...head, object: 'chat.completion', choices, ...(promptAtTop ? { prompt_token_ids: promptIds } : {}), usage: usage(promptIds.length, completionTokens(generated)) } };
};

const sglangGenerate: Route = async (context, body, signal) => {
  const { input_ids, sampling_params: params, return_logprob, return_prompt_token_ids } = parseBody(GenerateRequest, body);
  checkTokenIds(context, 'input_ids', input_ids);
  const generation = await generateWhole(context, input_ids, { maxTokens: params.max_new_tokens, seed: params.sampling_seed, temperature: params.temperature, topP: params.top_p, topK: params.top_k, stop: asList(params.stop), stopTokenIds: params.stop_token_ids ?? [], includeStop: params.no_stop_trim ?? false, skipSpecial: params.skip_special_tokens ?? true }, signal);
  const finishType = generation.finish === 'length' ? 'length' : 'stop';
  return {
    status: 200,
    body: {
      text: generation.text,
      output_ids: generation.tokenIds,
      ...(return_prompt_token_ids ? { prompt_token_ids: input_ids } : {}),
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
  const request = parseBody(TokenizeRequest, body);
  checkModel(context, request.model);
  checkNoSpecialTokensAdded(request.add_special_tokens);
  // A prompt is not rendered: the rendering fields would be ignored.
  const renderingField = (['add_generation_prompt', 'tools', 'chat_template_kwargs'] as const).find((name) => request.prompt !== undefined && request[name] !== undefined);
  if (renderingField) throw new RequestRejectedError(400, `${renderingField} applies to messages: a prompt is tokenized as sent, not rendered`, { param: renderingField });
  const kwargs = templateKwargs(request.chat_template_kwargs);
  const text = request.prompt ?? renderMessages(context, request.messages!.map(toMessage), { addGenerationPrompt: request.add_generation_prompt ?? true, ...(request.tools ? { tools: request.tools } : {}), ...(kwargs ? { kwargs } : {}) });
  checkTextFits(context, request.prompt !== undefined ? 'the prompt' : 'the rendered conversation', text, 0);
  const tokens = context.tokenizer.encode(text);
  // As vLLM: tokenizing what the model could not read is refused, naming the limit.
  if (tokens.length > context.maxModelLen) {
    throw new RequestRejectedError(400, `This model's maximum context length is ${context.maxModelLen} tokens. However, you requested ${tokens.length} tokens in the input for tokenization. Please reduce the length of the input.`);
  }
  return { status: 200, body: { count: tokens.length, max_model_len: context.maxModelLen, tokens } };
};

const detokenize: Route = (context, body) => {
  const { tokens } = parseBody(DetokenizeRequest, body);
  checkTokenIds(context, 'tokens', tokens);
  const text = context.tokenizer.decode(tokens);
  return { status: 200, body: context.flavor === 'sglang' ? { text } : { prompt: text } };
};

const models: Route = (context) => ({ status: 200, body: { object: 'list', data: [modelCard(context, context.startedAt)] } });

/** `GET /v1/models/{id}`: the served model's card, or a 404 `model_not_found` (never answered for another name, even by the test double). */
function model(id: string): Route {
  return (context) => {
    if (id !== context.model) throw new RequestRejectedError(404, `The model \`${id}\` does not exist. This server serves \`${context.model}\`.`, { param: 'model', code: 'model_not_found' });
    return { status: 200, body: modelCard(context, context.startedAt) };
  };
}

/** The route for a method and path: one of `routes`, or the model card under `/v1/models/`. */
export function findRoute(method: string | undefined, path: string): Route | undefined {
  const exact = routes[`${method} ${path}`];
  if (exact) return exact;
  const prefix = '/v1/models/';
  return method === 'GET' && path.startsWith(prefix) && path.length > prefix.length ? model(decodeURIComponent(path.slice(prefix.length))) : undefined;
}

const routes: Record<string, Route> = {
  'GET /v1/models': models,
  'GET /health': () => ({ status: 200, body: {} }),
  'POST /v1/completions': completions,
  'POST /v1/chat/completions': chatCompletions,
  'POST /v1/responses': responses,
  'POST /generate': sglangGenerate,
  'POST /tokenize': tokenize,
  'POST /detokenize': detokenize,
};

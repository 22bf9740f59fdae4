import { RequestRejectedError } from '../http-server/request-rejected-error.js';
import { completionTokens, policyVersion, tokenLabel, usage } from './answer-fields.js';
import { assistantReply } from './assistant-reply.js';
import { toMessage } from './chat-request-message.js';
import type { Generation } from './generator.js';
import { renderChatPrompt } from './render-chat-prompt.js';
import { checkNoSpecialTokensAdded, checkNoTopLogprobs, checkParallelToolCalls, checkStreamOptions, checkTextFits, parseBody } from './request-checks.js';
import { ChatRequest } from './request-wire-types.js';
import { responseId, unixSeconds } from './response-id.js';
import type { Route } from './route.js';
import { runOptions } from './run-options.js';
import { generations, sampleChoices } from './sample-choices.js';
import { checkModel } from './served-model.js';
import { chatCompletionChunks } from './stream-chunks.js';
import type { TokenPiece } from './token-pieces.js';
import { chatDefaults, refuseNonDefault, samplingDefaults } from './unsupported-parameters.js';

/** `POST /v1/chat/completions`: messages rendered with the chat template, replies read for tool calls when tools are offered. */
export const chatCompletions: Route = async (context, body, signal) => {
  const request = parseBody(ChatRequest, body);
  checkModel(context, request.model);
  refuseNonDefault(samplingDefaults, request);
  refuseNonDefault(chatDefaults, request);
  checkNoSpecialTokensAdded(request.add_special_tokens);
  checkStreamOptions(request);
  if (request.tool_choice === 'required')
    throw new RequestRejectedError(400, "tool_choice 'required' cannot be enforced by this server: send 'auto' or 'none'", {
      param: 'tool_choice',
      code: 'unsupported_parameter',
    });
  const topLogprobs = request.top_logprobs ?? (typeof request.logprobs === 'number' ? request.logprobs : 0);
  checkNoTopLogprobs(typeof request.top_logprobs === 'number' || typeof request.logprobs !== 'number' ? 'top_logprobs' : 'logprobs', topLogprobs);
  const wantsLogprobs = request.logprobs === true || typeof request.logprobs === 'number';
  const parseTools = (request.tools?.length ?? 0) > 0 && request.tool_choice !== 'none';
  const readsToolCalls = parseTools && context.toolCallParser !== undefined;
  checkParallelToolCalls(request.parallel_tool_calls, readsToolCalls);
  const text = renderChatPrompt(context, request.messages.map(toMessage), request.tools, {
    addGenerationPrompt: request.add_generation_prompt,
    continueFinalMessage: request.continue_final_message,
    chatTemplateKwargs: request.chat_template_kwargs,
  });
  const askedTokens = request.max_completion_tokens ?? request.max_tokens;
  checkTextFits(context, 'the rendered conversation', text, askedTokens ?? 1);
  const promptIds = context.tokenizer.encode(text);
  // Unasked, the completion gets the rest of the context, and at least one token: a prompt that fills it is refused.
  const maxTokens = askedTokens ?? Math.max(1, context.maxModelLen - promptIds.length);
  const steps = sampleChoices(
    context,
    [promptIds],
    runOptions(request, maxTokens, request.include_stop_str_in_output ?? request.no_stop_trim),
    request.n,
    signal,
  );
  const reply = (generation: Generation) => assistantReply(generation, context.toolCallParser, parseTools);
  const finish = (generation: Generation, answer = reply(generation)) => ({
    finish_reason: answer.finish_reason,
    ...(context.flavor === 'sglang' ? { matched_stop: generation.stopReason } : { stop_reason: generation.stopReason }),
    ...policyVersion(generation),
  });
  const logprobs = (ids: readonly number[], values: readonly number[]) => ({
    content: ids.map((id, j) => ({ token: tokenLabel(context, id, request.return_tokens_as_token_ids), logprob: values[j], bytes: null, top_logprobs: [] })),
  });
  const promptOnChoice = context.flavor === 'sglang' && request.return_prompt_token_ids;
  const promptAtTop = context.flavor === 'vllm' && request.return_token_ids;
  const head = { id: responseId('chatcmpl'), created: unixSeconds(), model: context.model };
  if (request.stream) {
    const plan = {
      // Without a parser, or with tools not read, the reply is its text as written: it streams token by token.
      reply: readsToolCalls ? reply : undefined,
      finish,
      logprobs: wantsLogprobs
        ? (pieces: TokenPiece[]) =>
            logprobs(
              pieces.map((piece) => piece.tokenId),
              pieces.map((piece) => piece.logprob),
            )
        : undefined,
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
  return {
    status: 200,
    body: {
      ...head,
      object: 'chat.completion',
      choices,
      ...(promptAtTop ? { prompt_token_ids: promptIds } : {}),
      usage: usage(promptIds.length, completionTokens(generated)),
    },
  };
};

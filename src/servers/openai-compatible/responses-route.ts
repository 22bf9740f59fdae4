import { responsesInputToMessages, responsesToolsToChatTools } from '../../core/responses-items.js';
import type { Message } from '../../core/message.js';
import { RequestRejectedError } from '../http-server/request-rejected-error.js';
import { assistantReply, type AssistantReply } from './assistant-reply.js';
import type { Generation } from './generator.js';
import { renderChatPrompt } from './render-chat-prompt.js';
import { checkNoTopLogprobs, checkParallelToolCalls, checkStreamOptions, checkTextFits, parseBody } from './request-checks.js';
import { ResponsesRequest } from './request-wire-types.js';
import { refuseNonDefault, responsesDefaults } from './unsupported-parameters.js';
import { itemId, unixSeconds } from './response-id.js';
import { responsesEvents, type ResponsesOutputItem, type ResponsesResponse } from './responses-events.js';
import type { Route } from './route.js';
import { checkRun, generateWhole, sample } from './sampling.js';
import { checkModel } from './served-model.js';

const refuse = (param: string, why: string) => new RequestRejectedError(400, `${param} ${why}`, { param, code: 'unsupported_parameter' });

/**
 * `POST /v1/responses`: the input (a string or items) becomes chat messages as vLLM's Responses endpoint
 * reads them, and is generated on the same path as chat. The output is Responses items, the model
 * call's last item carrying NeMo Gym's training fields (`prompt_token_ids`, `generation_token_ids`,
 * `generation_log_probs`) as NeMo Gym's vLLM model attaches them, so a NeMo Gym agent gets tokens to train on.
 * With `stream: true` the same answer comes as OpenAI's typed events (see `responsesEvents`).
 */
export const responses: Route = async (context, body, signal) => {
  const request = parseBody(ResponsesRequest, body);
  checkModel(context, request.model);
  refuseNonDefault(responsesDefaults, request);
  checkNoTopLogprobs('top_logprobs', request.top_logprobs ?? 0);
  checkStreamOptions(request);
  if (request.tool_choice === 'required') throw refuse('tool_choice', "'required' cannot be enforced by this server: send 'auto' or 'none'");
  const messages: Message[] = [
    ...(request.instructions ? [{ role: 'system' as const, content: request.instructions }] : []),
    ...responsesInputToMessages(request.input),
  ];
  const tools = request.tools?.length ? responsesToolsToChatTools(request.tools) : undefined;
  const readsToolCalls = tools !== undefined && request.tool_choice !== 'none' && context.toolCallParser !== undefined;
  checkParallelToolCalls(request.parallel_tool_calls, readsToolCalls);
  const text = renderChatPrompt(context, messages, tools, { addGenerationPrompt: true, continueFinalMessage: false });
  checkTextFits(context, 'the rendered input', text, request.max_output_tokens ?? 1);
  const promptIds = context.tokenizer.encode(text);
  const maxTokens = request.max_output_tokens ?? Math.max(1, context.maxModelLen - promptIds.length);
  const options = { maxTokens, temperature: request.temperature, topP: request.top_p, stop: [], stopTokenIds: [], includeStop: false, skipSpecial: true };
  const head = {
    id: itemId('resp'),
    object: 'response',
    created_at: unixSeconds(),
    model: context.model,
    error: null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    metadata: request.metadata ?? {},
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    temperature: request.temperature ?? 1,
    top_p: request.top_p ?? 1,
    tool_choice: request.tool_choice ?? 'auto',
    tools: request.tools ?? [],
    store: false,
    text: { format: { type: 'text' } },
  };
  // A reply not read for tool calls is one message: its id is known before its first token streams.
  const messageId = itemId('msg');
  const finished = (generation: Generation) =>
    responseOf(head, messageId, promptIds, generation, assistantReply(generation, context.toolCallParser, readsToolCalls));
  if (!request.stream) return { status: 200, body: finished(await generateWhole(context, promptIds, options, signal)) };
  checkRun(context, promptIds, options);
  const plan = {
    pending: { ...head, status: 'in_progress', incomplete_details: null, output: [], usage: null },
    finished,
    message: readsToolCalls ? undefined : { type: 'message', id: messageId, role: 'assistant', status: 'in_progress', content: [] },
  };
  return { status: 200, events: responsesEvents(sample(context, promptIds, options, signal), plan), framing: 'typed' };
};

/**
 * The whole response for a finished generation: the reply as Responses items (a message with the text
 * around any calls, then the calls), the model call's last item carrying NeMo Gym's training fields.
 */
function responseOf(head: Record<string, unknown>, messageId: string, promptIds: number[], generation: Generation, reply: AssistantReply): ResponsesResponse {
  const { content, tool_calls: calls = [] } = reply.message;
  const output: ResponsesOutputItem[] = [
    ...(content !== null && (content !== '' || calls.length === 0)
      ? [{ type: 'message', id: messageId, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: content, annotations: [] }] }]
      : []),
    ...calls.map((call) => ({
      type: 'function_call',
      id: itemId('fc'),
      call_id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
      status: 'completed',
    })),
  ];
  Object.assign(output.at(-1)!, { prompt_token_ids: promptIds, generation_token_ids: generation.tokenIds, generation_log_probs: generation.logprobs });
  const cut = generation.finish === 'length';
  return {
    ...head,
    status: cut ? 'incomplete' : 'completed',
    incomplete_details: cut ? { reason: 'max_output_tokens' } : null,
    output,
    usage: {
      input_tokens: promptIds.length,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: generation.tokenIds.length,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: promptIds.length + generation.tokenIds.length,
    },
  };
}

import type { Message } from '../../core/message.js';
import type { BackendRecipe } from '../backend-recipe.js';
import { convertSampling } from '../convert-sampling.js';
import { mapOpenAiFinishReason } from '../map-finish-reason.js';
import type { PolicyRequest } from '../policy.js';
import { OpenAiChatResponse } from './openai-wire-types.js';

function convertToOpenAiRequest(request: PolicyRequest, model: string): Record<string, unknown> {
  return {
    model,
    messages: request.messages.map((message: Message) => ({
      role: message.role === 'environment' ? 'user' : message.role,
      content: message.content,
      ...(message.tool_call_id ? { tool_call_id: message.tool_call_id } : {}),
    })),
    ...(request.tools && request.tools.length > 0 ? { tools: request.tools } : {}),
    ...convertSampling(request),
    ...(request.stop_strings.length > 0 ? { stop: request.stop_strings.slice(0, 4) } : {}),
  };
}

/**
 * Any OpenAI-compatible endpoint that returns no token ids (hosted models): for evaluation only. Its
 * rollouts say `has_training_tokens: false`; the text is tokenized locally only to keep the sequence measured.
 */
export const openAiBackend: BackendRecipe<OpenAiChatResponse> = {
  name: 'openai',
  path: '/v1/chat/completions',
  returnsTokenIds: false,
  toWire: convertToOpenAiRequest,
  responseSchema: OpenAiChatResponse,
  sampledReply: () => undefined,
  fromWire(wire) {
    const choice = wire.choices[0]!;
    return {
      token_ids: [],
      logprobs: [],
      token_source: 'none',
      text: choice.message.content ?? '',
      finish_reason: mapOpenAiFinishReason(choice.finish_reason),
      usage: { prompt_tokens: wire.usage?.prompt_tokens ?? 0, completion_tokens: wire.usage?.completion_tokens ?? 0 },
      // A hosted model renders its own prompt and never says with which ids: no turn is checked for drift.
      prompt_source: 'server',
    };
  },
};

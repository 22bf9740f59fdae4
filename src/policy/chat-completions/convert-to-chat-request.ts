import type { Message } from '../../core/message.js';
import { convertSampling } from '../convert-sampling.js';
import type { PolicyRequest } from '../policy.js';

export type ChatFlavor = 'vllm' | 'sglang';

/**
 * Messages in, token ids and logprobs out. Assistant turns are sent with their raw text (reasoning and
 * tool-call markup included), as the local template renders them, so the server builds the same prompt.
 */
export function convertToChatRequest(flavor: ChatFlavor, chatTemplateKwargs: Record<string, unknown> | undefined) {
  return (request: PolicyRequest, model: string): Record<string, unknown> => {
    return {
      model,
      messages: request.messages.map(toWireMessage),
      ...(request.tools && request.tools.length > 0 ? { tools: request.tools } : {}),
      ...convertSampling(request),
      stop: request.stop_strings,
      stop_token_ids: request.stop_token_ids,
      include_stop_str_in_output: true,
      skip_special_tokens: false,
      logprobs: true,
      top_logprobs: 0,
      return_token_ids: true,
      return_tokens_as_token_ids: true,
      ...(flavor === 'sglang' ? { return_prompt_token_ids: true, no_stop_trim: true } : {}),
      ...(chatTemplateKwargs ? { chat_template_kwargs: chatTemplateKwargs } : {}),
    };
  };
}

function toWireMessage(message: Message): Record<string, unknown> {
  return {
    role: message.role === 'environment' ? 'user' : message.role,
    content: message.content,
    ...(message.reasoning_content === undefined ? {} : { reasoning_content: message.reasoning_content }),
    ...(message.tool_call_id === undefined ? {} : { tool_call_id: message.tool_call_id }),
    ...(message.tool_calls === undefined ? {} : { tool_calls: message.tool_calls }),
  };
}

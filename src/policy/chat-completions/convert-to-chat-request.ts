import type { Message } from '../../core/message.js';
import type { PolicyRequest } from '../policy.js';

export type ChatFlavor = 'vllm' | 'sglang';

/**
 * Messages in, token ids and logprobs out. Assistant turns are sent with their raw text (reasoning and
 * tool-call markup included), as the local template renders them, so the server builds the same prompt.
 */
export function convertToChatRequest(flavor: ChatFlavor, chatTemplateKwargs: Record<string, unknown> | undefined) {
  return (request: PolicyRequest, model: string): Record<string, unknown> => {
    const { sampling } = request;
    return {
      model,
      messages: request.messages.map(toWireMessage),
      ...(request.tools && request.tools.length > 0 ? { tools: request.tools } : {}),
      max_tokens: sampling.max_tokens,
      temperature: sampling.greedy ? 0 : sampling.temperature,
      top_p: sampling.greedy ? 1 : sampling.top_p,
      ...(sampling.top_k && !sampling.greedy ? { top_k: sampling.top_k } : {}),
      ...(sampling.seed === undefined ? {} : { seed: sampling.seed }),
      n: 1,
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

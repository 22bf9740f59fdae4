import { RequestRejectedError } from '../http-server/request-rejected-error.js';
import { toMessage } from './chat-request-message.js';
import { checkNoSpecialTokensAdded, checkTextFits, parseBody, renderMessages } from './request-checks.js';
import { TokenizeRequest } from './request-wire-types.js';
import type { Route } from './route.js';
import { checkModel } from './served-model.js';
import { templateKwargs } from './template-kwargs.js';

/** `POST /tokenize`: a prompt as sent, or messages rendered with the chat template, as vLLM counts them. */
export const tokenize: Route = (context, body) => {
  const request = parseBody(TokenizeRequest, body);
  checkModel(context, request.model);
  checkNoSpecialTokensAdded(request.add_special_tokens);
  // A prompt is not rendered: the rendering fields would be ignored.
  const renderingField = (['add_generation_prompt', 'tools', 'chat_template_kwargs'] as const).find(
    (name) => request.prompt !== undefined && request[name] !== undefined,
  );
  if (renderingField)
    throw new RequestRejectedError(400, `${renderingField} applies to messages: a prompt is tokenized as sent, not rendered`, { param: renderingField });
  const kwargs = templateKwargs(request.chat_template_kwargs);
  const text =
    request.prompt ??
    renderMessages(context, request.messages!.map(toMessage), {
      addGenerationPrompt: request.add_generation_prompt ?? true,
      ...(request.tools ? { tools: request.tools } : {}),
      ...(kwargs ? { kwargs } : {}),
    });
  checkTextFits(context, request.prompt !== undefined ? 'the prompt' : 'the rendered conversation', text, 0);
  const tokens = context.tokenizer.encode(text);
  // As vLLM: tokenizing what the model could not read is refused, naming the limit.
  if (tokens.length > context.maxModelLen) {
    throw new RequestRejectedError(
      400,
      `This model's maximum context length is ${context.maxModelLen} tokens. However, you requested ${tokens.length} tokens in the input for tokenization. Please reduce the length of the input.`,
    );
  }
  return { status: 200, body: { count: tokens.length, max_model_len: context.maxModelLen, tokens } };
};

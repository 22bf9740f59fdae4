import { RequestRejectedError } from '../http-server/request-rejected-error.js';

/**
 * Variables the server itself sets when it renders: a `chat_template_kwargs` entry under one of these
 * names would either be overwritten (ignored) or replace the conversation, so it is refused, naming
 * the request field that sets it properly.
 */
const reserved: Record<string, string> = {
  messages: 'send the conversation as messages',
  tools: 'send tools as the request field tools',
  add_generation_prompt: 'send it as the request field add_generation_prompt',
  bos_token: "the tokenizer's special tokens are fixed",
  eos_token: "the tokenizer's special tokens are fixed",
  pad_token: "the tokenizer's special tokens are fixed",
  unk_token: "the tokenizer's special tokens are fixed",
};

/** The request's `chat_template_kwargs` as template variables, or a 400 naming a reserved one. */
export function templateKwargs(kwargs: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  for (const name of Object.keys(kwargs ?? {})) {
    const why = reserved[name];
    if (why)
      throw new RequestRejectedError(400, `chat_template_kwargs.${name} is set by the server: ${why}`, {
        param: `chat_template_kwargs.${name}`,
        code: 'unsupported_parameter',
      });
  }
  return kwargs;
}

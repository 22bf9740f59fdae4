import { checkTokenIds, parseBody } from './request-checks.js';
import { DetokenizeRequest } from './request-wire-types.js';
import type { Route } from './route.js';

/** `POST /detokenize`: the text of token ids, under vLLM's key (`prompt`) or SGLang's (`text`). */
export const detokenize: Route = (context, body) => {
  const { tokens } = parseBody(DetokenizeRequest, body);
  checkTokenIds(context, 'tokens', tokens);
  const text = context.tokenizer.decode(tokens);
  return { status: 200, body: context.flavor === 'sglang' ? { text } : { prompt: text } };
};

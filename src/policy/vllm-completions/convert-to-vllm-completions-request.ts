import { convertSampling } from '../convert-sampling.js';
import type { PolicyRequest } from '../policy.js';

/**
 * Token-in: the exact prompt ids, nothing added (`add_special_tokens: false`), special tokens kept in
 * the text, and the stop string kept in the output so text and ids describe the same tokens.
 */
export function convertToVllmCompletionsRequest(request: PolicyRequest, model: string): Record<string, unknown> {
  return {
    model,
    prompt: request.prompt_token_ids,
    ...convertSampling(request),
    stop: request.stop_strings,
    stop_token_ids: request.stop_token_ids,
    include_stop_str_in_output: true,
    skip_special_tokens: false,
    add_special_tokens: false,
    logprobs: 0,
    return_token_ids: true,
    return_tokens_as_token_ids: true,
  };
}

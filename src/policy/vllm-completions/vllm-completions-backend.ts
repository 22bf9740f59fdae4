import { PolicyError } from '../../core/errors/policy-error.js';
import type { BackendRecipe } from '../backend-recipe.js';
import { mapOpenAiFinishReason } from '../map-finish-reason.js';
import { replyList } from '../sampled-reply.js';
import { convertToVllmCompletionsRequest } from './convert-to-vllm-completions-request.js';
import { readVllmCompletionsResponse } from './read-vllm-completions-response.fast.js';
import { VllmCompletionsResponse } from './vllm-completions-wire-types.js';

/** vLLM's exact path: gymnast renders and tokenizes, vLLM samples from exactly those ids. The default for vLLM. */
export const vllmCompletionsBackend: BackendRecipe<VllmCompletionsResponse> = {
  name: 'vllm-completions',
  path: '/v1/completions',
  returnsTokenIds: true,
  toWire: convertToVllmCompletionsRequest,
  responseSchema: VllmCompletionsResponse,
  readResponse: readVllmCompletionsResponse,
  sampledReply(wire) {
    const choice = wire.choices[0]!;
    if (!choice.token_ids) return undefined;
    return {
      tokenIds: replyList(choice.token_ids, 'choices[0].token_ids'),
      logprobs: replyList(choice.logprobs?.token_logprobs ?? [], 'choices[0].logprobs.token_logprobs'),
      text: choice.text,
      textPath: 'choices[0].text',
      textIs: 'decoded',
    };
  },
  fromWire(wire) {
    const choice = wire.choices[0]!;
    if (!choice.token_ids)
      throw new PolicyError('vllm-completions: the server returned no token_ids (it needs vLLM 0.10.2 or later, which honours return_token_ids)');
    return {
      token_ids: choice.token_ids,
      // Checked (`sampledReply`): one finite logprob per id.
      logprobs: (choice.logprobs?.token_logprobs ?? []) as number[],
      text: choice.text,
      finish_reason: mapOpenAiFinishReason(choice.finish_reason),
      usage: { prompt_tokens: wire.usage.prompt_tokens, completion_tokens: wire.usage.completion_tokens },
      // vLLM's `CompletionResponseChoice.prompt_token_ids` (vllm/entrypoints/openai/protocol.py, with
      // `return_token_ids`; shared reference dependencies.md §6): the ids it read, checked against those sent.
      ...(choice.prompt_token_ids ? { prompt_token_ids: choice.prompt_token_ids } : {}),
      ...(choice.policy_version === undefined ? {} : { policy_version: choice.policy_version }),
    };
  },
};

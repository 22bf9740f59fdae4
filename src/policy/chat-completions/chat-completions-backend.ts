import { PolicyError } from '../../core/errors/policy-error.js';
import type { BackendRecipe } from '../backend-recipe.js';
import { mapOpenAiFinishReason } from '../map-finish-reason.js';
import { ChatCompletionsResponse } from './chat-completions-wire-types.js';
import { convertToChatRequest, type ChatFlavor } from './convert-to-chat-request.js';
import { readChatCompletionsResponse } from './read-chat-completions-response.js';

export interface ChatBackendOptions {
  /** Template variables for the server's chat template, e.g. `{enable_thinking: false}`. */
  chatTemplateKwargs?: Record<string, unknown>;
}

/**
 * `vllm-chat` / `sglang-chat`: the server renders the prompt. Output ids come from `token_ids` and
 * logprobs from `logprobs.content` (ids as `token_id:N`, checked against `token_ids`); the server's
 * prompt ids come back so the engine can count any difference from the ledger as drift.
 */
export function chatCompletionsBackend(flavor: ChatFlavor, options: ChatBackendOptions = {}): BackendRecipe<ChatCompletionsResponse> {
  const name = `${flavor}-chat`;
  return {
    name,
    path: '/v1/chat/completions',
    returnsTokenIds: true,
    toWire: convertToChatRequest(flavor, options.chatTemplateKwargs),
    responseSchema: ChatCompletionsResponse,
    readResponse: readChatCompletionsResponse,
    fromWire(wire) {
      const choice = wire.choices[0]!;
      if (!choice.token_ids) throw new PolicyError(`${name}: the server returned no token_ids (return_token_ids needs vLLM 0.10.2+ or a recent SGLang)`);
      const entries = choice.logprobs?.content ?? [];
      if (entries.length !== choice.token_ids.length) throw new PolicyError(`${name}: ${choice.token_ids.length} token ids but ${entries.length} logprobs`);
      entries.forEach((entry, i) => {
        const labelled = /^token_id:(\d+)$/.exec(entry.token);
        if (labelled && Number(labelled[1]) !== choice.token_ids![i]) {
          throw new PolicyError(`${name}: logprob ${i} is for token ${labelled[1]} but token_ids has ${choice.token_ids![i]}`);
        }
      });
      const promptIds = flavor === 'vllm' ? wire.prompt_token_ids : choice.prompt_token_ids;
      return {
        token_ids: choice.token_ids,
        logprobs: entries.map((entry) => entry.logprob),
        text: choice.message.content ?? '',
        finish_reason: mapOpenAiFinishReason(choice.finish_reason),
        usage: { prompt_tokens: wire.usage.prompt_tokens, completion_tokens: wire.usage.completion_tokens },
        ...(promptIds ? { prompt_token_ids: promptIds } : {}),
      };
    },
  };
}

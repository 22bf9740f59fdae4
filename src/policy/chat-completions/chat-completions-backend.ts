import { PolicyError } from '../../core/errors/policy-error.js';
import type { BackendRecipe } from '../backend-recipe.js';
import { mapOpenAiFinishReason } from '../map-finish-reason.js';
import { ChatCompletionsResponse } from './chat-completions-wire-types.js';
import { convertToChatRequest, type ChatFlavor } from './convert-to-chat-request.js';
import { readChatCompletionsResponse } from './read-chat-completions-response.fast.js';
import { replyList } from '../sampled-reply.js';

export interface ChatBackendOptions {
  /** Template variables for the server's chat template, e.g. `{enable_thinking: false}`. */
  chatTemplateKwargs?: Record<string, unknown>;
}

/**
 * `vllm-chat` / `sglang-chat`: the server renders the prompt. Output ids come from `token_ids` and
 * logprobs from `logprobs.content` (ids as `token_id:N`, checked against `token_ids`); the server's
 * prompt ids come back so the engine can count any difference from the ledger as drift, and a turn
 * whose reply has none as drift-unchecked.
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
    sampledReply(wire) {
      const choice = wire.choices[0]!;
      if (!choice.token_ids) return undefined;
      const entries = choice.logprobs?.content ?? [];
      const path = 'choices[0].logprobs.content';
      return {
        tokenIds: replyList(choice.token_ids, 'choices[0].token_ids'),
        logprobs: replyList(
          entries.map((entry) => entry.logprob),
          path,
          (index) => `${path}[${index}].logprob`,
        ),
        tokenIdsAgain: replyList(
          entries.map((entry) => labelledId(entry.token)),
          path,
          (index) => `${path}[${index}].token`,
        ),
        text: choice.message.content ?? '',
        textPath: 'choices[0].message.content',
        textIs: 'within-decoded',
      };
    },
    fromWire(wire) {
      const choice = wire.choices[0]!;
      if (!choice.token_ids) throw new PolicyError(`${name}: the server returned no token_ids (return_token_ids needs vLLM 0.10.2+ or a recent SGLang)`);
      const promptIds = promptIdsOf(wire);
      return {
        token_ids: choice.token_ids,
        // Checked (`sampledReply`): one logprob per id.
        logprobs: (choice.logprobs?.content ?? []).map((entry) => entry.logprob),
        text: choice.message.content ?? '',
        finish_reason: mapOpenAiFinishReason(choice.finish_reason),
        usage: { prompt_tokens: wire.usage.prompt_tokens, completion_tokens: wire.usage.completion_tokens },
        ...(promptIds ? { prompt_token_ids: promptIds } : {}),
        prompt_source: 'server',
        ...(choice.policy_version === undefined ? {} : { policy_version: choice.policy_version }),
      };
    },
  };
}

/**
 * The prompt's ids wherever the answer has them, whichever server the flavor names: a proxy, a router
 * or another version may answer one flavor in the other's place, and reading only one place wrote
 * every such turn as drift-free. SGLang puts them on the choice (`ChatCompletionResponseChoice.prompt_token_ids`
 * in python/sglang/srt/entrypoints/openai/protocol.py, filled for `return_prompt_token_ids` and, since
 * sgl-project/sglang#30917, `return_token_ids`); vLLM at the top of the answer (`ChatCompletionResponse.prompt_token_ids`,
 * for `return_token_ids`; see shared reference dependencies.md §6).
 */
function promptIdsOf(wire: ChatCompletionsResponse): number[] | undefined {
  return wire.choices[0]!.prompt_token_ids ?? wire.prompt_token_ids ?? undefined;
}

/** The id in a logprob entry's `token` when the server labels tokens by id (`token_id:N`, as asked). */
function labelledId(token: string): number | undefined {
  const labelled = /^token_id:(\d+)$/.exec(token);
  return labelled ? Number(labelled[1]) : undefined;
}

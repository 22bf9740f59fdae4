import type { StreamedToken, StreamingPolicy } from '../../policy/policy.js';
import type { Tokenizer } from '../../tokens/tokenizer.js';

export interface GenerationRequest {
  promptIds: readonly number[];
  maxTokens: number;
  seed: number | undefined;
  temperature: number;
  topP: number;
  topK: number | undefined;
  stop: readonly string[];
  stopTokenIds: readonly number[];
  /** Keep the matched stop string in the text (vLLM `include_stop_str_in_output`, SGLang `no_stop_trim`). */
  includeStopString: boolean;
  /** Hide special tokens from the text (the ids keep them). */
  skipSpecialTokens: boolean;
}

/** How a generation ended. */
export interface GenerationEnd {
  finish: 'stop' | 'length';
  /** The matched stop string or stop token id; null when the reply ended on its own end-of-sequence token. */
  stopReason: string | number | null;
  /** Which weights sampled it, when the policy counts them (the embedded one does). */
  policyVersion?: number;
}

export interface Generation extends GenerationEnd {
  tokenIds: number[];
  logprobs: number[];
  text: string;
}

/**
 * What samples tokens behind the OpenAI-compatible routes: yields each token as soon as it is sampled
 * (a stream sends it then) and returns how the generation ended. A consumer that stops iterating (a
 * client that left) ends the generation, as `signal` aborting does.
 */
export type Generator = (request: GenerationRequest, signal: AbortSignal) => AsyncGenerator<StreamedToken, GenerationEnd, undefined>;

/** Text the way vLLM returns it: stop string trimmed unless asked to keep it, special tokens hidden unless asked. */
export function visibleText(tokenizer: Tokenizer, request: GenerationRequest, ids: readonly number[], stopReason: string | number | null): string {
  const hidden = new Set(request.skipSpecialTokens ? [...tokenizer.stopTokenIds, ...request.stopTokenIds] : []);
  const text = tokenizer.decode(ids.filter((id) => !hidden.has(id)));
  return typeof stopReason === 'string' && !request.includeStopString ? text.slice(0, text.indexOf(stopReason)) : text;
}

/** Serves a policy that streams its tokens (the embedded model) through the routes. */
export function policyGenerator(policy: StreamingPolicy, tokenizer: Tokenizer): Generator {
  return async function* (request, signal) {
    const result = yield* policy.stream(
      {
        session_id: 'server',
        prompt_token_ids: request.promptIds,
        messages: [],
        sampling: {
          temperature: request.temperature,
          top_p: request.topP,
          max_tokens: request.maxTokens,
          greedy: false,
          ...(request.topK ? { top_k: request.topK } : {}),
          ...(request.seed === undefined ? {} : { seed: request.seed }),
        },
        stop_strings: request.stop,
        stop_token_ids: request.stopTokenIds,
      },
      signal,
    );
    const ids = result.token_ids;
    const last = ids.at(-1);
    const text = tokenizer.decode(ids);
    const matched = request.stop.find((stop) => text.includes(stop));
    const stopReason = last !== undefined && request.stopTokenIds.includes(last) && !tokenizer.stopTokenIds.includes(last) ? last : (matched ?? null);
    return {
      finish: result.finish_reason.unified === 'length' ? 'length' : 'stop',
      stopReason,
      ...(result.policy_version === undefined ? {} : { policyVersion: result.policy_version }),
    };
  };
}

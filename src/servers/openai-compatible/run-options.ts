import type { ChatRequest, CompletionRequest } from './request-wire-types.js';
import type { RunOptions } from './sampling.js';

/** A request's `stop` as a list. */
export const stopList = (stop: string | string[] | undefined) => (stop === undefined ? [] : typeof stop === 'string' ? [stop] : stop);

/** The sampling options a completions or chat request asks for. */
export function runOptions(request: CompletionRequest | ChatRequest, maxTokens: number, includeStop: boolean | undefined): RunOptions {
  return {
    maxTokens,
    seed: request.seed,
    temperature: request.temperature,
    topP: request.top_p,
    topK: request.top_k,
    stop: stopList(request.stop),
    stopTokenIds: request.stop_token_ids ?? [],
    includeStop: includeStop ?? false,
    skipSpecial: request.skip_special_tokens ?? true,
  };
}

import type { StreamedToken } from '../../policy/policy.js';
import { drain } from '../../util/drain.js';
import { visibleText, type Generation, type GenerationEnd, type GenerationRequest } from './generator.js';
import { checkContext, checkNotEmpty, checkTokenIds } from './request-checks.js';
import type { RouteContext } from './route.js';
import { TokenPieces, type TokenPiece } from './token-pieces.js';

// What every generating route (completions, chat, Responses, SGLang's /generate) shares: the checks
// before sampling, and the one path every answer, streamed or not, is sampled on (the ranges of the
// sampling fields are in `request-wire-types.ts`).

export interface RunOptions {
  maxTokens: number;
  seed?: number | undefined;
  temperature?: number | undefined;
  topP?: number | undefined;
  topK?: number | undefined;
  stop: string[];
  stopTokenIds: number[];
  includeStop: boolean;
  skipSpecial: boolean;
}

/**
 * One step of a running generation: a token as it is sampled, with the text it lets a stream send; then
 * the end, with the generation whole and the text its tokens' pieces did not carry (what was held back
 * and turned out to be the answer's after all).
 */
export type GenerationStep = { piece: TokenPiece; generation?: undefined } | { piece?: undefined; generation: Generation; rest: string };

/**
 * Checks what every generating route shares (a prompt, ids in the vocabulary, room in the context).
 * Routes check every prompt before sampling any, so a stream that is refused is refused with a status.
 */
export function checkRun(context: RouteContext, promptIds: number[], options: RunOptions): void {
  checkNotEmpty(promptIds);
  checkTokenIds(context, 'stop_token_ids', options.stopTokenIds);
  checkContext(context, promptIds.length, options.maxTokens);
}

/**
 * Samples a checked prompt, yielding each token's piece as soon as the generator hands the token out,
 * then the end; returns the generation whole. Stopping the iteration stops the generator.
 */
export async function* sample(
  context: RouteContext,
  promptIds: number[],
  options: RunOptions,
  signal: AbortSignal,
): AsyncGenerator<GenerationStep, Generation, undefined> {
  const request = generationRequest(promptIds, options);
  const pieces = new TokenPieces(context.tokenizer, request);
  const tokens: AsyncIterator<StreamedToken, GenerationEnd> = context.generate(request, signal);
  const tokenIds: number[] = [];
  const logprobs: number[] = [];
  try {
    for (let step = await tokens.next(); ; step = await tokens.next()) {
      if (step.done) {
        const text = visibleText(context.tokenizer, request, tokenIds, step.value.stopReason);
        const { finish, stopReason, policyVersion } = step.value;
        const generation: Generation = { tokenIds, logprobs, text, finish, stopReason, ...(policyVersion === undefined ? {} : { policyVersion }) };
        yield { generation, rest: pieces.rest(text) };
        return generation;
      }
      tokenIds.push(step.value.token_id);
      logprobs.push(step.value.logprob);
      yield { piece: pieces.next(step.value.token_id, step.value.logprob) };
    }
  } finally {
    await tokens.return?.();
  }
}

/** Checks and samples to the end: the generation whole, for an answer that is not streamed. */
export async function generateWhole(context: RouteContext, promptIds: number[], options: RunOptions, signal: AbortSignal): Promise<Generation> {
  checkRun(context, promptIds, options);
  return drain(sample(context, promptIds, options, signal));
}

function generationRequest(promptIds: number[], options: RunOptions): GenerationRequest {
  return {
    promptIds,
    maxTokens: options.maxTokens,
    seed: options.seed,
    temperature: options.temperature ?? 1,
    topP: options.topP ?? 1,
    topK: options.topK !== undefined && options.topK > 0 ? options.topK : undefined,
    stop: options.stop,
    stopTokenIds: options.stopTokenIds,
    includeStopString: options.includeStop,
    skipSpecialTokens: options.skipSpecial,
  };
}

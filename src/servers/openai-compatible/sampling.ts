import { z } from 'zod';
import type { Generation } from './generator.js';
import { checkContext, checkNotEmpty, checkTokenIds } from './request-checks.js';
import type { RouteContext } from './routes.js';

// What every generating route (completions, chat, Responses, SGLang's /generate) shares: the sampling ranges and the checked call to the generator.

/** Ranges as vLLM checks them: a value out of range is a 400 naming the parameter, never a silent garbage sample. */
export const TokenIds = z.array(z.number().int());
export const Temperature = z.number().nonnegative();
export const TopP = z.number().gt(0, 'top_p must be in (0, 1]').lte(1, 'top_p must be in (0, 1]');
export const TopK = z.number().int().gte(-1, 'top_k must be -1 or 0 (no limit) or at least 1');

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

/** Checks what every generating route shares (a prompt, ids in the vocabulary, room in the context), then samples. */
export function run(context: RouteContext, promptIds: number[], options: RunOptions, signal: AbortSignal): Promise<Generation> {
  checkNotEmpty(promptIds);
  checkTokenIds(context, 'stop_token_ids', options.stopTokenIds);
  checkContext(context, promptIds.length, options.maxTokens);
  return context.generate(
    {
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
    },
    signal,
  );
}


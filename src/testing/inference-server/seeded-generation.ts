import type { Tokenizer } from '../../tokens/tokenizer.js';
import { createSeededRandom, mixSeed } from '../../util/seeded-random.js';

export interface GenerationRequest {
  promptIds: readonly number[];
  promptText: string;
  maxTokens: number;
  seed: number;
  stop: readonly string[];
  stopTokenIds: readonly number[];
  /** Keep the matched stop string in the text (vLLM `include_stop_str_in_output`, SGLang `no_stop_trim`). */
  includeStopString: boolean;
  /** Hide special tokens from the text (the ids keep them). */
  skipSpecialTokens: boolean;
}

export interface Generation {
  tokenIds: number[];
  logprobs: number[];
  text: string;
  finish: 'stop' | 'length';
  /** The matched stop string or stop token id; null when the reply ended on its own end-of-sequence token. */
  stopReason: string | number | null;
}

/** What the simulated model says for a prompt; the server appends the end-of-sequence token. */
export type Responder = (prompt: { text: string; ids: readonly number[]; seed: number }) => string;

const words = ['the', 'answer', 'is', 'four', 'tool', 'call', 'result', 'so', 'then', 'we', 'add', 'two'];

/** The default model: a few seeded words, so the same seed and prompt always give the same reply. */
export const seededWords: Responder = ({ ids, seed }) => {
  const random = createSeededRandom(mixSeed(seed, ids.length, ids.at(-1) ?? 0));
  return Array.from({ length: random.int(3, 12) }, () => random.pick(words)).join(' ');
};

/**
 * A deterministic stand-in for sampling: the reply's tokens come from the responder, each with a
 * logprob derived from (seed, position, token); stop strings, stop ids and max_tokens cut it as vLLM does.
 */
export function generate(tokenizer: Tokenizer, responder: Responder, request: GenerationRequest): Generation {
  const reply = [...tokenizer.encode(responder({ text: request.promptText, ids: request.promptIds, seed: request.seed })), ...tokenizer.stopTokenIds.slice(0, 1)];
  const tokenIds: number[] = [];
  for (const id of reply) {
    if (tokenIds.length >= request.maxTokens) return finish(tokenizer, request, tokenIds, 'length', null);
    tokenIds.push(id);
    if (request.stopTokenIds.includes(id) || tokenizer.stopTokenIds.includes(id)) {
      return finish(tokenizer, request, tokenIds, 'stop', tokenizer.stopTokenIds.includes(id) ? null : id);
    }
    const text = tokenizer.decode(tokenIds);
    const matched = request.stop.find((stop) => text.includes(stop));
    if (matched !== undefined) return finish(tokenizer, request, tokenIds, 'stop', matched);
  }
  return finish(tokenizer, request, tokenIds, 'stop', null);
}

function finish(tokenizer: Tokenizer, request: GenerationRequest, tokenIds: number[], finishReason: 'stop' | 'length', stopReason: string | number | null): Generation {
  const specials = new Set(request.skipSpecialTokens ? [...tokenizer.stopTokenIds, ...request.stopTokenIds] : []);
  let text = tokenizer.decode(tokenIds.filter((id) => !specials.has(id)));
  if (typeof stopReason === 'string' && !request.includeStopString) text = text.slice(0, text.indexOf(stopReason));
  const logprobs = tokenIds.map((id, position) => -((mixSeed(request.seed, position, id) % 10_000) / 4_000) - 0.001);
  return { tokenIds, logprobs, text, finish: finishReason, stopReason };
}

import type { Generator } from '../../servers/openai-compatible/generator.js';
import type { Tokenizer } from '../../tokens/tokenizer.js';
import { createSeededRandom, mixSeed } from '../../util/seeded-random.js';
import { nonCanonicalIds, type Tokenization } from './non-canonical-ids.js';

/** What the simulated model says for a prompt; the server appends the end-of-sequence token. */
export type Responder = (prompt: { text: string; ids: readonly number[]; seed: number }) => string;

const words = ['the', 'answer', 'is', 'four', 'tool', 'call', 'result', 'so', 'then', 'we', 'add', 'two'];

/** The default model: a few seeded words, so the same seed and prompt always give the same reply. */
export const seededWords: Responder = ({ ids, seed }) => {
  const random = createSeededRandom(mixSeed(seed, ids.length, ids.at(-1) ?? 0));
  return Array.from({ length: random.int(3, 12) }, () => random.pick(words)).join(' ');
};

export interface SeededGeneratorOptions {
  /** How the sampled ids spell the responder's text (default `canonical`; see `Tokenization`). */
  tokenization?: Tokenization;
}

/**
 * A deterministic stand-in for sampling: the reply's tokens come from the responder, each with a
 * logprob derived from (seed, position, token), no two positions of a reply alike, handed out one
 * by one; stop strings, stop ids and max_tokens cut it as vLLM does.
 */
export function seededGenerator(tokenizer: Tokenizer, responder: Responder, options: SeededGeneratorOptions = {}): Generator {
  const tokenization = options.tokenization ?? 'canonical';
  return async function* (request, signal) {
    signal.throwIfAborted();
    const seed = request.seed ?? 0;
    const canonical = tokenizer.encode(responder({ text: tokenizer.decode(request.promptIds), ids: request.promptIds, seed }));
    const spelled =
      tokenization === 'canonical'
        ? canonical
        : nonCanonicalIds(tokenizer, canonical, mixSeed(seed, request.promptIds.length), [...tokenizer.stopTokenIds, ...request.stopTokenIds]);
    const reply = [...spelled, ...tokenizer.stopTokenIds.slice(0, 1)];
    const tokenIds: number[] = [];
    const logprobs = new Set<number>();
    for (const id of reply) {
      // As a real decoder would, between tokens: a client that left gets no more work done for it.
      signal.throwIfAborted();
      if (tokenIds.length >= request.maxTokens) return { finish: 'length', stopReason: null };
      yield { token_id: id, logprob: distinctLogprob(logprobs, -((mixSeed(seed, tokenIds.length, id) % 10_000) / 4_000) - 0.001) };
      tokenIds.push(id);
      if (request.stopTokenIds.includes(id) || tokenizer.stopTokenIds.includes(id))
        return { finish: 'stop', stopReason: tokenizer.stopTokenIds.includes(id) ? null : id };
      const text = tokenizer.decode(tokenIds);
      const matched = request.stop.find((stop) => text.includes(stop));
      if (matched !== undefined) return { finish: 'stop', stopReason: matched };
    }
    return { finish: 'stop', stopReason: null };
  };
}

/** `logprob`, or the next value below it no earlier position of the reply has: a logprob swapped between positions must show. */
function distinctLogprob(used: Set<number>, logprob: number): number {
  let value = logprob;
  while (used.has(value)) value -= 1 / 4_000;
  used.add(value);
  return value;
}

import { KvCache } from './gpt-decoder.js';
import type { GptModel } from './gpt-model.js';

/** A finished sequence's keys and values: what it fed the model, and each layer's rows for those tokens. */
interface Kept {
  tokens: readonly number[];
  keys: Float32Array[];
  values: Float32Array[];
}

/**
 * The keys and values of recently finished sequences, so a new prompt that starts the same way (the
 * chat template's opening, a system prompt, an episode's earlier turns) reads only what is new: the
 * first token of a reply comes that much sooner (vLLM's automatic prefix caching). A row's keys and
 * values depend only on the tokens up to it, and are the same bits however it was batched, so a
 * reused prefix decodes exactly as a fresh one would. Holds at most `capacity` sequences, dropping the
 * least recently used.
 */
export class PrefixCache {
  readonly #capacity: number;
  /** Least recently used first. */
  readonly #kept: Kept[] = [];

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /**
   * A cache for `prompt` holding the longest prefix any kept sequence shares with it, and the tokens
   * still to read. At least the prompt's last token is left to read: its logits give the first token.
   */
  start(model: GptModel, prompt: readonly number[]): { cache: KvCache; pending: number[] } {
    const cache = new KvCache(model);
    let best: Kept | undefined;
    let shared = 0;
    for (const kept of this.#kept) {
      const length = commonPrefix(kept.tokens, prompt, prompt.length - 1);
      if (length > shared) [best, shared] = [kept, length];
    }
    if (best) {
      const width = shared * model.config.channels;
      best.keys.forEach((keys, layer) => cache.keys[layer]!.set(keys.subarray(0, width)));
      best.values.forEach((values, layer) => cache.values[layer]!.set(values.subarray(0, width)));
      cache.length = shared;
      this.#kept.push(...this.#kept.splice(this.#kept.indexOf(best), 1));
    }
    return { cache, pending: prompt.slice(shared) };
  }

  /** Forgets every kept sequence: their keys and values were computed with weights the model no longer has. */
  clear(): void {
    this.#kept.length = 0;
  }

  /** Keeps a finished sequence: `tokens` are what it fed the model, in order (its cache holds the first `cache.length`). */
  keep(tokens: readonly number[], cache: KvCache): void {
    const rows = (tables: readonly Float32Array[]) => tables.map((table) => table.slice(0, cache.length * cache.channels));
    this.#kept.push({ tokens: tokens.slice(0, cache.length), keys: rows(cache.keys), values: rows(cache.values) });
    if (this.#kept.length > this.#capacity) this.#kept.shift();
  }
}

/** How many leading tokens `a` and `b` share, at most `limit`. */
function commonPrefix(a: readonly number[], b: readonly number[], limit: number): number {
  const end = Math.min(a.length, b.length, limit);
  let i = 0;
  while (i < end && a[i] === b[i]) i++;
  return i;
}

import type { Tokenizer } from '../../tokens/tokenizer.js';

/**
 * Finds where a request's stop strings and stop ids end its output, one new token at a time, as vLLM
 * does: a stop id (other than the tokenizer's own end of sequence, which ends a reply by itself) ends
 * it at that token, a stop string as soon as the text of the newest tokens contains it.
 */
export class StopMatcher {
  readonly #tokenizer: Tokenizer;
  readonly #stop: readonly string[];
  readonly #stopIds: ReadonlySet<number>;
  /** Tokens decoded to look for a stop string: enough to hold the longest one, even one character per token. */
  readonly #window: number;

  constructor(tokenizer: Tokenizer, stop: readonly string[], stopTokenIds: readonly number[]) {
    this.#tokenizer = tokenizer;
    this.#stop = stop.filter((text) => text !== '');
    this.#stopIds = new Set(stopTokenIds.filter((id) => !tokenizer.stopTokenIds.includes(id)));
    this.#window = Math.max(0, ...this.#stop.map((text) => text.length)) + 2;
  }

  /** The stop string or id that `output` (the reply so far) ends on with its newest token, if any. */
  match(output: readonly number[]): string | number | undefined {
    const id = output.at(-1);
    if (id !== undefined && this.#stopIds.has(id)) return id;
    if (this.#stop.length === 0) return undefined;
    const text = this.#tokenizer.decode(output.slice(Math.max(0, output.length - this.#window)));
    return this.#stop.find((stop) => text.includes(stop));
  }
}

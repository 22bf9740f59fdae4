import type { Tokenizer } from './tokenizer.js';

const printableAscii = `${Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('')}\n`;

/**
 * One token per character, plus whole-string special tokens matched before characters.
 * Unknown characters map to `<unk>`, which decodes to U+FFFD so the loss is visible.
 */
export class CharTokenizer implements Tokenizer {
  readonly stopTokenIds: readonly number[];
  readonly vocabulary: readonly string[];
  readonly vocabSize: number;
  /** A token is one code point (at most 2 UTF-16 units, `<unk>` included) or a whole special token. */
  readonly maxCharsPerToken: number;
  readonly #ids: ReadonlyMap<string, number>;
  readonly #specials: readonly string[];
  readonly #unknownId: number;

  constructor(options: { characters?: string; specialTokens?: readonly string[]; stopTokens?: readonly string[] } = {}) {
    const specials = ['<unk>', ...(options.specialTokens ?? [])];
    const characters = [...new Set(options.characters ?? printableAscii)];
    this.vocabulary = [...specials, ...characters];
    this.vocabSize = this.vocabulary.length;
    this.maxCharsPerToken = Math.max(2, ...this.vocabulary.map((token) => token.length));
    this.#ids = new Map(this.vocabulary.map((token, id) => [token, id]));
    // Longest first, so a special token that prefixes another never shadows it.
    this.#specials = specials.slice(1).sort((a, b) => b.length - a.length);
    this.#unknownId = 0;
    this.stopTokenIds = (options.stopTokens ?? []).map((token) => this.#idOf(token));
  }

  encode(text: string): number[] {
    const ids: number[] = [];
    let position = 0;
    while (position < text.length) {
      const special = this.#specials.find((token) => text.startsWith(token, position));
      if (special !== undefined) {
        ids.push(this.#idOf(special));
        position += special.length;
        continue;
      }
      const character = String.fromCodePoint(text.codePointAt(position) as number);
      ids.push(this.#ids.get(character) ?? this.#unknownId);
      position += character.length;
    }
    return ids;
  }

  decode(ids: readonly number[]): string {
    return ids.map((id) => (id === this.#unknownId ? '\uFFFD' : (this.vocabulary[id] ?? '\uFFFD'))).join('');
  }

  #idOf(token: string): number {
    const id = this.#ids.get(token);
    if (id === undefined) throw new RangeError(`token ${JSON.stringify(token)} is not in the vocabulary`);
    return id;
  }
}

import type { Tokenizer } from '../../tokens/tokenizer.js';
import { createSeededRandom, type SeededRandom } from '../../util/seeded-random.js';

/**
 * How the test server's sampled ids spell its reply. `canonical`: as `encode(text)` does. A real
 * sampler picks one token at a time and may spell the same text otherwise (` answer` as ` ` +
 * `answer`); `non-canonical` does that, so a client that re-derives ids from text gets other ids.
 */
export type Tokenization = 'canonical' | 'non-canonical';

/**
 * Other ids for the text of `ids`: about half of the tokens whose text has two or more characters
 * (at least one, when any has) are each split at a seeded character boundary into the vocabulary's
 * ids for the two sides. The same seed gives the same ids. `keep` (the stop ids) are never split:
 * a stop token written out as characters would no longer stop the generation. Returns `ids` when
 * no token can be split, or when the split ids would decode to other text (a decoder that is not
 * byte-level may add or drop spaces between pieces).
 */
export function nonCanonicalIds(tokenizer: Tokenizer, ids: readonly number[], seed: number, keep: readonly number[]): number[] {
  const random = createSeededRandom(seed);
  const splits = ids.map((id) => (keep.includes(id) ? undefined : split(tokenizer, id, random)));
  const chosen = splits.map((pieces) => pieces !== undefined && random.next() < 0.5);
  if (!chosen.includes(true)) {
    const first = splits.findIndex((pieces) => pieces !== undefined);
    if (first < 0) return [...ids];
    chosen[first] = true;
  }
  const spelled = ids.flatMap((id, i) => (chosen[i] ? splits[i]! : [id]));
  return tokenizer.decode(spelled) === tokenizer.decode(ids) ? spelled : [...ids];
}

/** The token's text as two runs of ids split at a seeded character, or undefined when it has fewer than two characters or is half a character. */
function split(tokenizer: Tokenizer, id: number, random: SeededRandom): number[] | undefined {
  const text = tokenizer.decode([id]);
  const characters = [...text];
  // U+FFFD: the token is part of a multi-byte character, whose bytes no split of this text keeps.
  if (characters.length < 2 || text.includes('\uFFFD')) return undefined;
  const at = random.int(1, characters.length - 1);
  const pieces = [...tokenizer.encode(characters.slice(0, at).join('')), ...tokenizer.encode(characters.slice(at).join(''))];
  return tokenizer.decode(pieces) === text ? pieces : undefined;
}

// Fast path: mirrors @huggingface/tokenizers 0.2.0's BPE model; loads 45× faster (docs/fast-paths.md#bpe-tables); guard: test/tokens/bpe-tables-fast-path.test.ts.
import * as hfTokenizers from '@huggingface/tokenizers';
import { Tokenizer as HfTokenizerImplementation } from '@huggingface/tokenizers';
import { sayFastPathOff } from '../util/fast-path-off.js';
import { once } from '../util/once.js';
import type { BpeTables } from './bpe-tables.js';
import { StringTableMap } from './string-table-map.js';
import type { TokenizerConfig } from './tokenizer-config.js';

/** What `bpeModelFromTables` relies on of @huggingface/tokenizers' BPE model (checked before use). */
interface BpeInternals {
  tokens_to_ids: Map<string, number> | StringTableMap;
  vocab: (string | undefined)[];
  unk_token_id: number | undefined;
  bpe_ranks: Map<string, number> | StringTableMap;
  merges: unknown;
}

export interface TablesImplementation {
  implementation: HfTokenizerImplementation;
  /** The length of the library's id → token array. */
  vocabSize: number;
  /** The longest entry of that array (at least 1). */
  longestToken: () => number;
  /** Puts the tokens of `ids` in that array, which holds only the added tokens and those of ids decoded before. */
  fillVocabulary: (ids: readonly number[]) => void;
}

/**
 * The library's tokenizer built from a shell with an empty vocabulary and no merges, then given the
 * tables as its BPE constructor would have built them and its added tokens on top, as its Tokenizer
 * constructor does. Its model's token → id map and merge ranks are `StringTableMap`s over the tables
 * rather than `Map`s: the library only calls `get` and `has` on them once built (checked against
 * @huggingface/tokenizers 0.2.0: `BPE.encode`/`bpe`/`add_node`, `fuse_unk`, `Tokenizer.encode`,
 * `token_to_id`), and set the added tokens. Its id → token array, which only decoding reads, is
 * filled as decoding needs it. Undefined when the library's model is not the shape this was written
 * against (another version), which one line on stderr says (`sayFastPathOff`): the caller then
 * builds through the JSON.
 */
export function bpeModelFromTables(tables: BpeTables, config: TokenizerConfig): TablesImplementation | undefined {
  const implementation = new HfTokenizerImplementation(tables.shell, config);
  const model = (implementation as unknown as { model: unknown }).model as BpeInternals;
  const added = (implementation as unknown as { added_tokens: unknown }).added_tokens;
  // The library exports its BPE class at run time without declaring it.
  const { BPE } = hfTokenizers as unknown as { BPE?: abstract new (...args: never[]) => unknown };
  const shaped =
    BPE !== undefined &&
    model instanceof BPE &&
    model.tokens_to_ids instanceof Map &&
    model.bpe_ranks instanceof Map &&
    Array.isArray(model.vocab) &&
    'unk_token_id' in model &&
    'merges' in model;
  if (
    !shaped ||
    !Array.isArray(added) ||
    !added.every((token: { content?: unknown; id?: unknown }) => typeof token.content === 'string' && typeof token.id === 'number')
  ) {
    sayFastPathOff({
      fastPath: 'BPE model from tables',
      library: '@huggingface/tokenizers',
      writtenFor: '0.2.0',
      reason:
        'its BPE model is not the shape the tables fill (an exported BPE class with tokens_to_ids and bpe_ranks Maps, a vocab array, unk_token_id, merges; added tokens with content and id)',
      slowPath: 'building the tokenizer from tokenizer.json',
    });
    return undefined;
  }
  const addedTokens = added as { content: string; id: number }[];
  const { tokens, ids, merges } = tables;
  const tokensToIds = new StringTableMap(tokens, { values: ids, remember: true });
  const unknown = tables.shell.model.unk_token;
  // As the BPE constructor: looked up before the added tokens are set.
  model.unk_token_id = typeof unknown === 'string' ? tokensToIds.get(unknown) : undefined;
  for (const token of addedTokens) tokensToIds.set(token.content, token.id);
  model.tokens_to_ids = tokensToIds;
  model.bpe_ranks = new StringTableMap(merges);
  let vocabSize = 0;
  for (let index = 0; index < ids.length; index += 1) vocabSize = Math.max(vocabSize, ids[index]! + 1);
  for (const token of addedTokens) vocabSize = Math.max(vocabSize, token.id + 1);
  // The token each id ends up with, as the library's id → token array has it: the last vocabulary
  // entry with that id (-1: none), unless an added token took the id.
  const indexOfId = once(() => {
    const indexes = new Int32Array(vocabSize).fill(-1);
    for (let index = 0; index < ids.length; index += 1) indexes[ids[index]!] = index;
    for (const token of addedTokens) indexes[token.id] = -1;
    return indexes;
  });
  // That array, which only decoding reads, starts with the added tokens alone: `fillVocabulary`
  // adds the tokens of the ids a decode is about to read, so no reader pays for 150k strings it never shows.
  const vocabulary = new Array<string | undefined>(vocabSize);
  for (const token of addedTokens) vocabulary[token.id] = token.content;
  model.vocab = vocabulary;
  const fillVocabulary = (decoding: readonly number[]): void => {
    // Indexed, not for…of: called on every decode with arrays of several shapes, where for…of
    // allocated an iterator result per id (a tenth of collect's allocations on the fleet).
    for (let at = 0; at < decoding.length; at++) {
      const id = decoding[at]!;
      if (!Number.isInteger(id) || id < 0 || id >= vocabSize || vocabulary[id] !== undefined) continue;
      const index = indexOfId()[id]!;
      if (index >= 0) vocabulary[id] = tokens.at(index);
    }
  };
  // Read by nothing after construction; kept for whoever asks.
  lazyProperty(model, 'merges', () => merges.strings().map((key) => JSON.parse(key) as unknown));
  const longestToken = (): number => {
    let longest = 1;
    for (const token of addedTokens) longest = Math.max(longest, token.content.length);
    for (const index of indexOfId()) if (index >= 0) longest = Math.max(longest, tokens.lengthAt(index));
    return longest;
  };
  return { implementation, vocabSize, longestToken, fillVocabulary };
}

/** `object[key]` computed on first read (and replaceable, as a plain field is). */
function lazyProperty(object: object, key: string, compute: () => unknown): void {
  let value: unknown;
  let computed = false;
  Object.defineProperty(object, key, {
    configurable: true,
    enumerable: true,
    get: () => {
      if (!computed) [value, computed] = [compute(), true];
      return value;
    },
    set: (replacement: unknown) => void ([value, computed] = [replacement, true]),
  });
}

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LRUCache } from 'lru-cache';
import { Tokenizer as HfTokenizerImplementation } from '@huggingface/tokenizers';
import { z } from 'zod';
import { ConfigError } from '../core/errors/config-error.js';
import { fileErrorReason } from '../util/file-error-reason.js';
import { once } from '../util/once.js';
import { bpeModelFromTables } from './bpe-model.fast.js';
import type { BpeTables } from './bpe-tables.js';
import { installByteLevelFastPath } from './byte-level.fast.js';
import type { Tokenizer } from './tokenizer.js';
import { TokenizerConfig } from './tokenizer-config.js';
import { defaultCacheDirectory, readTokenizerJson, type CacheNotice } from './tokenizer-cache.js';

/** Texts this short are remembered by `encode`: chat-template glue and short observations repeat in every turn. */
const ENCODE_CACHE_TEXT_LENGTH = 256;
const ENCODE_CACHE_ENTRIES = 4096;
/**
 * Sequences this short are remembered by `decode`: every repeat of a task decodes the same opening, and
 * observations and short answers repeat too. Keying costs ~0.3 µs against ~4.5 µs for a decode of 15 ids.
 */
const DECODE_CACHE_IDS = 64;
const DECODE_CACHE_ENTRIES = 4096;

const fromTables = Symbol('fromTables');

/** A Hugging Face tokenizer (`tokenizer.json`), the same ids as transformers' fast tokenizers. */
export class HfTokenizer implements Tokenizer {
  readonly config: TokenizerConfig;
  #stopTokenIds: readonly number[] | undefined;
  readonly vocabSize: number;
  /** Computed on first read: collect never asks (the servers do), and it is a pass over the vocabulary. */
  readonly #maxCharsPerToken: () => number | undefined;
  readonly #implementation: HfTokenizerImplementation;
  /** Built from tables: the library's id → token array is filled for the ids about to be decoded. */
  readonly #fillVocabulary: ((ids: readonly number[]) => void) | undefined;
  /** Ids of short texts; callers get copies, never these arrays. */
  readonly #encoded = new LRUCache<string, readonly number[]>({ max: ENCODE_CACHE_ENTRIES });
  readonly #decoded = new LRUCache<string, string>({ max: DECODE_CACHE_ENTRIES });

  constructor(tokenizerJson: object, config: TokenizerConfig) {
    this.config = config;
    const tables = (tokenizerJson as { [fromTables]?: BpeTables })[fromTables];
    const built = tables === undefined ? undefined : bpeModelFromTables(tables, config);
    if (tables !== undefined && built !== undefined) {
      this.#implementation = built.implementation;
      this.#fillVocabulary = built.fillVocabulary;
      this.vocabSize = built.vocabSize;
      this.#maxCharsPerToken = once(() => charsPerTokenBound(tables.shell, built.longestToken));
      installByteLevelFastPath(this.#implementation, tables.shell);
    } else {
      const json = tables === undefined ? tokenizerJson : tablesToJson(tables);
      this.#implementation = new HfTokenizerImplementation(json, config);
      installByteLevelFastPath(this.#implementation, json);
      const vocabulary = this.#implementation.get_vocab(true);
      // A loop, not Math.max(...ids): 150k arguments overflow the stack.
      let largest = -1;
      for (const id of vocabulary.values()) largest = Math.max(largest, id);
      this.vocabSize = largest + 1;
      this.#maxCharsPerToken = once(() =>
        charsPerTokenBound(json, () => {
          let longest = 1;
          for (const token of vocabulary.keys()) longest = Math.max(longest, token.length);
          return longest;
        }),
      );
    }
  }

  get maxCharsPerToken(): number | undefined {
    return this.#maxCharsPerToken();
  }

  /** The end-of-sequence token's id. */
  get stopTokenIds(): readonly number[] {
    if (this.#stopTokenIds === undefined) {
      const eos = this.config.eos_token === undefined ? undefined : this.tokenId(this.config.eos_token);
      this.#stopTokenIds = eos === undefined ? [] : [eos];
    }
    return this.#stopTokenIds;
  }

  /**
   * The tokenizer a BPE `tokenizer.json` describes, built from its tables (see `bpeTables`) without
   * parsing the JSON or running the library's slow constructor steps: the same ids and text.
   */
  static fromTables(tables: BpeTables, config: TokenizerConfig): HfTokenizer {
    return new HfTokenizer({ [fromTables]: tables }, config);
  }

  encode(text: string): number[] {
    if (text.length === 0) return [];
    if (text.length > ENCODE_CACHE_TEXT_LENGTH) return this.#implementation.encode(text, { add_special_tokens: false }).ids;
    const cached = this.#encoded.get(text);
    if (cached !== undefined) return [...cached];
    const ids = this.#implementation.encode(text, { add_special_tokens: false }).ids;
    this.#encoded.set(text, ids);
    return [...ids];
  }

  /** Special tokens are kept and spaces are not cleaned up, so decoding never hides what was sampled. */
  decode(ids: readonly number[]): string {
    if (ids.length === 0) return '';
    if (ids.length > DECODE_CACHE_IDS) return this.#decodeUncached(ids);
    const key = ids.join(',');
    const cached = this.#decoded.get(key);
    if (cached !== undefined) return cached;
    const text = this.#decodeUncached(ids);
    this.#decoded.set(key, text);
    return text;
  }

  #decodeUncached(ids: readonly number[]): string {
    this.#fillVocabulary?.(ids);
    // The library reads the ids and keeps nothing of them: no copy.
    return this.#implementation.decode(ids as number[], { skip_special_tokens: false, clean_up_tokenization_spaces: false });
  }

  tokenId(token: string): number | undefined {
    return this.#implementation.token_to_id(token);
  }
}

const Component = z.looseObject({
  type: z.string(),
  behavior: z.string().optional(),
  normalizers: z.array(z.unknown()).optional(),
  pretokenizers: z.array(z.unknown()).optional(),
});
const TokenizerShape = z.looseObject({
  normalizer: z.unknown(),
  pre_tokenizer: z.unknown(),
  model: z.looseObject({ type: z.string().optional(), fuse_unk: z.boolean().optional() }),
  added_tokens: z.array(z.looseObject({ lstrip: z.boolean().optional(), rstrip: z.boolean().optional() })).optional(),
});

/**
 * A bound on the input characters (UTF-16 units) one token stands for, promised only for byte-level
 * BPE (GPT-2, Llama 3, Qwen): a token there is at most `longest` bytes of normalized text, and a byte
 * never holds more than one UTF-16 unit. Unicode normalization can shrink text, by at most two input
 * units per output byte (compatibility maps astral U+1D400 to "A"; composition joins at most three
 * units into a two-byte character, U+0055 U+0308 U+0304 to U+01D5), hence the factor 2. Any other
 * model (an unknown token swallows a whole word), a normalizer or pre-tokenizer that deletes text, or
 * an added token that strips the whitespace around it: no bound.
 */
function charsPerTokenBound(tokenizerJson: object, longestToken: () => number): number | undefined {
  const parsed = TokenizerShape.safeParse(tokenizerJson);
  if (!parsed.success) return undefined;
  const { normalizer, pre_tokenizer, model, added_tokens } = parsed.data;
  if (model.type !== 'BPE' || model.fuse_unk || added_tokens?.some((token) => token.lstrip || token.rstrip)) return undefined;
  const factor = normalizerFactor(normalizer);
  const pieces = preTokenizerParts(pre_tokenizer);
  if (factor === undefined || pieces === undefined || !pieces.includes('ByteLevel')) return undefined;
  return longestToken() * factor;
}

function normalizerFactor(node: unknown): number | undefined {
  if (node === null || node === undefined) return 1;
  const parsed = Component.safeParse(node);
  if (!parsed.success) return undefined;
  const { type, normalizers } = parsed.data;
  if (type === 'NFC' || type === 'NFD' || type === 'NFKC' || type === 'NFKD') return 2;
  if (type === 'Lowercase') return 1;
  if (type !== 'Sequence' || !normalizers) return undefined;
  const factors = normalizers.map(normalizerFactor);
  return factors.every((factor) => factor !== undefined) ? factors.reduce((product, factor) => product * factor, 1) : undefined;
}

/** The pre-tokenizers' types, or undefined when one may delete text (whitespace splitters, `Removed` splits). */
function preTokenizerParts(node: unknown): string[] | undefined {
  if (node === null || node === undefined) return [];
  const parsed = Component.safeParse(node);
  if (!parsed.success) return undefined;
  const { type, behavior, pretokenizers } = parsed.data;
  if (type === 'Sequence') {
    const parts = (pretokenizers ?? []).map(preTokenizerParts);
    return parts.every((part) => part !== undefined) ? parts.flat() : undefined;
  }
  const keepsText = type === 'ByteLevel' || type === 'Digits' || ((type === 'Split' || type === 'Punctuation') && behavior !== 'Removed');
  return keepsText ? [type] : undefined;
}

export interface LoadHfTokenizerOptions {
  /**
   * Where the tables of a BPE `tokenizer.json` are kept between runs, so later loads skip parsing it
   * (Qwen3's 11 MB: 45× less CPU, docs/fast-paths.md#bpe-tables); `false` for none. Default: `defaultCacheDirectory()`.
   */
  cacheDirectory?: string | false;
  /** Hears, once per folder, why a cache folder others could write to is not used (default: stderr). */
  onNotice?: CacheNotice;
}

/** Loads `tokenizer.json` and `tokenizer_config.json` from a folder, with errors that name the file. */
export async function loadHfTokenizer(directory: string, options: LoadHfTokenizerOptions = {}): Promise<HfTokenizer> {
  const cacheDirectory = options.cacheDirectory === false ? undefined : (options.cacheDirectory ?? defaultCacheDirectory());
  const tokenizerJson = await readTokenizerJson(join(directory, 'tokenizer.json'), cacheDirectory, readJson, options.onNotice);
  const rawConfig = await readJson(join(directory, 'tokenizer_config.json'));
  const config = TokenizerConfig.safeParse(rawConfig);
  if (!config.success) {
    const issues = config.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new ConfigError(`${join(directory, 'tokenizer_config.json')}: ${issues}`);
  }
  return tokenizerJson.tables === undefined
    ? new HfTokenizer(tokenizerJson.json as object, config.data)
    : HfTokenizer.fromTables(tokenizerJson.tables, config.data);
}

/** The `tokenizer.json` the tables came from (the same vocabulary entries in the same order, the same merges). */
function tablesToJson(tables: BpeTables): object {
  const vocab: Record<string, number> = {};
  tables.tokens.strings().forEach((token, index) => (vocab[token] = tables.ids[index]!));
  return { ...tables.shell, model: { ...tables.shell.model, vocab, merges: tables.merges.strings().map((key) => JSON.parse(key) as unknown) } };
}

async function readJson(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read ${path}: ${fileErrorReason(error) ?? String(error)}`, { cause: error });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${path} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
}

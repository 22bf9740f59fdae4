import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { embeddedModelDirectory } from '../policy/embedded/embedded-policy.js';
import type { GptModel } from '../policy/embedded/gpt-model.js';

/**
 * Writes the weights as a folder `EmbeddedPolicy.load(folder)` reads: `model.bin`, a `model.json`
 * whose sha256 matches it, and the embedded tokenizer's files beside them. Returns the folder.
 */
export async function writeCheckpoint(folder: string, model: GptModel, about: Record<string, unknown>): Promise<string> {
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, 'model.bin'), model.toBytes());
  const manifest = {
    ...about,
    config: model.config,
    parameters: model.params.length,
    weights: { file: 'model.bin', format: 'float32-le', sha256: model.sha256() },
  };
  await writeFile(join(folder, 'model.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  for (const file of ['tokenizer.json', 'tokenizer_config.json']) await copyFile(join(embeddedModelDirectory, file), join(folder, file));
  return folder;
}

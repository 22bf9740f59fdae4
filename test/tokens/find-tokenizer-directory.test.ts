import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { findTokenizerDirectory } from '../../src/tokens/find-tokenizer-directory.js';
import { qwen3Directory } from '../support/qwen3.js';

/** A hub cache folder holding `model` in snapshot `revision`, with `refs/main` naming it unless told not to. */
function hub(model: string, revision: string, options: { refsMain?: boolean; extraSnapshot?: boolean } = {}): string {
  const cache = mkdtempSync(join(tmpdir(), 'gymnast-hub-'));
  const repo = join(cache, `models--${model.replaceAll('/', '--')}`);
  mkdirSync(join(repo, 'snapshots', revision), { recursive: true });
  for (const file of ['tokenizer.json', 'tokenizer_config.json']) symlinkSync(join(qwen3Directory, file), join(repo, 'snapshots', revision, file));
  if (options.refsMain ?? true) {
    mkdirSync(join(repo, 'refs'));
    writeFileSync(join(repo, 'refs', 'main'), `${revision}\n`);
  }
  if (options.extraSnapshot) mkdirSync(join(repo, 'snapshots', 'older'));
  return cache;
}

describe("a model's tokenizer folder, found from its name as vLLM and transformers find the model", () => {
  it('is the name itself when it is a folder with tokenizer.json and tokenizer_config.json (vLLM lists a local model by its path)', () => {
    assert.deepEqual(findTokenizerDirectory(qwen3Directory, {}), { directory: qwen3Directory });
  });

  it("is the Hugging Face cache's snapshot that refs/main names, the cache found as huggingface_hub finds it", () => {
    const cache = hub('Qwen/Qwen3-0.6B', 'c1a5e0', { extraSnapshot: true });
    const snapshot = join(cache, 'models--Qwen--Qwen3-0.6B', 'snapshots', 'c1a5e0');
    assert.deepEqual(findTokenizerDirectory('Qwen/Qwen3-0.6B', { HF_HUB_CACHE: cache, HF_HOME: '/nowhere' }), { directory: snapshot }, 'HF_HUB_CACHE first');
    const home = mkdtempSync(join(tmpdir(), 'gymnast-hf-home-'));
    symlinkSync(cache, join(home, 'hub'));
    assert.deepEqual(
      findTokenizerDirectory('Qwen/Qwen3-0.6B', { HF_HOME: home }),
      { directory: join(home, 'hub', 'models--Qwen--Qwen3-0.6B', 'snapshots', 'c1a5e0') },
      'then $HF_HOME/hub',
    );
    const xdg = mkdtempSync(join(tmpdir(), 'gymnast-xdg-'));
    mkdirSync(join(xdg, 'huggingface'));
    symlinkSync(cache, join(xdg, 'huggingface', 'hub'));
    assert.deepEqual(
      findTokenizerDirectory('Qwen/Qwen3-0.6B', { XDG_CACHE_HOME: xdg }),
      { directory: join(xdg, 'huggingface', 'hub', 'models--Qwen--Qwen3-0.6B', 'snapshots', 'c1a5e0') },
      'then $XDG_CACHE_HOME/huggingface/hub',
    );
  });

  it('takes the only snapshot when refs/main is missing, and none when there are several to choose from', () => {
    const single = hub('org/model', 'abc', { refsMain: false });
    assert.deepEqual(findTokenizerDirectory('org/model', { HF_HUB_CACHE: single }), { directory: join(single, 'models--org--model', 'snapshots', 'abc') });
    const several = hub('org/model', 'abc', { refsMain: false, extraSnapshot: true });
    assert.deepEqual(findTokenizerDirectory('org/model', { HF_HUB_CACHE: several }), { looked: ['org/model', join(several, 'models--org--model')] });
  });

  it('says where it looked when nothing is there, and never looks a path up in the cache', () => {
    const cache = mkdtempSync(join(tmpdir(), 'gymnast-hub-'));
    assert.deepEqual(findTokenizerDirectory('Qwen/Qwen3-Unseen', { HF_HUB_CACHE: cache }), {
      looked: ['Qwen/Qwen3-Unseen', join(cache, 'models--Qwen--Qwen3-Unseen')],
    });
    assert.deepEqual(findTokenizerDirectory('/models/qwen3', { HF_HUB_CACHE: cache }), { looked: ['/models/qwen3'] });
  });
});

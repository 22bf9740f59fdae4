import assert from 'node:assert/strict';
import { chmod, chown, copyFile, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { embeddedModelDirectory } from '../../src/policy/embedded/embedded-policy.js';
import { decodeBpeTables, encodeBpeTables, type BpeTables } from '../../src/tokens/bpe-tables.js';
import { loadHfTokenizer, type HfTokenizer } from '../../src/tokens/index.js';
import { qwen3Directory } from '../support/qwen3.js';

// The cache decides every token id a run trains on: what is read must be what this user wrote, whole.

const probe = '<|im_start|>user\nwhat is 12+13?<|im_end|>\n<|im_start|>assistant\nThe answer is 25.<|im_end|>';
const isRoot = process.getuid?.() === 0;
const OTHER_UID = 54321;

/** The `about` a cache file was written for (the header's JSON line), so a forged file can claim the same. */
function aboutOf(bytes: Buffer): unknown {
  const start = bytes.indexOf(0x0a) + 1;
  return (JSON.parse(bytes.toString('utf8', start, bytes.indexOf(0x0a, start))) as { about: unknown }).about;
}

/** Valid tables for the same `tokenizer.json` in which the special token `special` is spelled differently: what an attacker would plant. */
function forgedTables(genuine: Buffer, special = '<|im_end|>'): Buffer {
  const about = aboutOf(genuine);
  const tables = decodeBpeTables(genuine, about)!;
  const addedTokens = (tables.shell.added_tokens as { content: string }[]).map((token) =>
    token.content === special ? { ...token, content: special.toUpperCase() } : token,
  );
  const forged: BpeTables = { ...tables, shell: { ...tables.shell, added_tokens: addedTokens } };
  return encodeBpeTables(forged, about);
}

describe('the tokenizer cache reads only what this user wrote, whole', () => {
  let directory: string;
  let modelDirectory: string;
  let reference: HfTokenizer;

  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'gymnast-cache-safety-'));
    modelDirectory = join(directory, 'model');
    await mkdir(modelDirectory);
    for (const name of ['tokenizer.json', 'tokenizer_config.json']) await copyFile(join(qwen3Directory, name), join(modelDirectory, name));
    reference = await loadHfTokenizer(modelDirectory, { cacheDirectory: false });
  });
  after(() => rm(directory, { recursive: true, force: true }));

  /** A private cache folder holding the tables of the model, written by a first load. */
  async function freshCache(name: string): Promise<{ folder: string; file: string; intact: Buffer }> {
    const folder = join(directory, name);
    await loadHfTokenizer(modelDirectory, { cacheDirectory: folder });
    const names = (await readdir(folder)).filter((entry) => entry.endsWith('.bin'));
    assert.equal(names.length, 1);
    const file = join(folder, names[0]!);
    return { folder, file, intact: await readFile(file) };
  }

  async function encodesLikeReference(folder: string, onNotice?: (message: string) => void): Promise<boolean> {
    const tokenizer = await loadHfTokenizer(modelDirectory, { cacheDirectory: folder, ...(onNotice ? { onNotice } : {}) });
    return JSON.stringify(tokenizer.encode(probe)) === JSON.stringify(reference.encode(probe));
  }

  it('is used when a forged file sits in a private folder of this user (what the specs below refuse is otherwise accepted)', async () => {
    const { folder, file, intact } = await freshCache('accepted');
    await writeFile(file, forgedTables(intact), { mode: 0o600 });
    assert.equal(await encodesLikeReference(folder), false, 'the forged tables were read: the cache is trusted when it is safe');
  });

  it('notices one changed byte in the header, not only in the body: the SHA-256 covers the whole file', async () => {
    const { folder, file, intact } = await freshCache('header');
    const damaged = Buffer.from(intact);
    const at = damaged.indexOf('<|im_end|>', 0, 'latin1') + '<|im_en'.length;
    assert.ok(at > 0 && at < damaged.indexOf(0x0a, damaged.indexOf(0x0a) + 1), 'the byte is in the header');
    damaged[at] = 'D'.charCodeAt(0);
    await writeFile(file, damaged);
    assert.equal(await encodesLikeReference(folder), true, 'the damaged file was read: <|im_end|> is no longer its special token');
    assert.deepEqual(await readFile(file), intact, 'rewritten');
  });

  it('never reads through a link swapped in between its checks and its read (the checks are on the opened descriptor)', async () => {
    // A small BPE tokenizer: a load takes a millisecond, so hundreds of them race the swapper.
    const small = join(directory, 'small');
    await mkdir(small);
    const special = { id: 3, content: '<|end|>', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true };
    await writeFile(
      join(small, 'tokenizer.json'),
      JSON.stringify({
        version: '1.0',
        added_tokens: [special],
        normalizer: null,
        pre_tokenizer: null,
        post_processor: null,
        decoder: null,
        model: { type: 'BPE', vocab: { a: 0, b: 1, ab: 2, '<|end|>': 3 }, merges: ['a b'] },
      }),
    );
    await writeFile(join(small, 'tokenizer_config.json'), '{}');
    const folder = join(directory, 'race');
    const expected = JSON.stringify((await loadHfTokenizer(small, { cacheDirectory: folder })).encode('ab<|end|>'));
    const file = join(folder, (await readdir(folder)).find((entry) => entry.endsWith('.bin'))!);
    const forged = join(directory, 'forged.bin');
    await writeFile(forged, forgedTables(await readFile(file), '<|end|>'), { mode: 0o600 });
    const genuine = join(directory, 'genuine.bin');
    await copyFile(file, genuine);
    // Another thread swaps the cache file between a regular file of this user and a link to the forged tables, as fast as it can.
    const swapper = new Worker(
      `const { linkSync, renameSync, symlinkSync } = require('node:fs');
       const { workerData: { file, genuine, forged }, parentPort } = require('node:worker_threads');
       let stop = false;
       parentPort.on('message', () => (stop = true));
       (function swap() {
         for (let i = 0; i < 100; i += 1) {
           symlinkSync(forged, file + '.l'); renameSync(file + '.l', file);
           linkSync(genuine, file + '.r'); renameSync(file + '.r', file);
         }
         if (stop) parentPort.close(); else setImmediate(swap);
       })();`,
      { eval: true, workerData: { file, genuine, forged } },
    );
    let forgedLoads = 0;
    const loads = 500;
    try {
      for (let load = 0; load < loads; load += 1) {
        const ids = JSON.stringify((await loadHfTokenizer(small, { cacheDirectory: folder })).encode('ab<|end|>'));
        if (ids !== expected) forgedLoads += 1;
      }
    } finally {
      swapper.postMessage('stop');
      await new Promise((resolve) => swapper.once('exit', resolve));
    }
    assert.equal(forgedLoads, 0, `${forgedLoads} of ${loads} loads used the forged tables`);
  });

  it('refuses a cache folder others can write, says how to fix it, and builds the tables without it', async () => {
    for (const mode of [0o777, 0o1777, 0o775]) {
      const { folder, file, intact } = await freshCache(`shared-${mode.toString(8)}`);
      await writeFile(file, forgedTables(intact), { mode: 0o600 });
      await chmod(folder, mode);
      const notices: string[] = [];
      assert.equal(await encodesLikeReference(folder, (message) => notices.push(message)), true, `mode ${mode.toString(8)}: the forged tables were read`);
      assert.equal(await encodesLikeReference(folder, (message) => notices.push(message)), true);
      assert.equal(notices.length, 1, 'said once');
      assert.match(notices[0]!, new RegExp(`${folder.replaceAll(/[\\^$.*+?()[\]{}|]/g, '\\$&')}.*writable by others`));
      assert.match(notices[0]!, /chmod go-w/);
      assert.match(notices[0]!, /GYMNAST_CACHE_DIR/);
      assert.deepEqual((await readdir(folder)).sort(), [file.slice(folder.length + 1)], 'nothing written into it either');
    }
  });

  it('says nothing of a refused folder to a tokenizer it would not cache (no BPE tables), and makes no folder for one', async () => {
    const missing = join(directory, 'never-made');
    await loadHfTokenizer(embeddedModelDirectory, { cacheDirectory: missing });
    await assert.rejects(stat(missing), { code: 'ENOENT' });
    const shared = join(directory, 'shared-word-level');
    await mkdir(shared, { mode: 0o777 });
    await chmod(shared, 0o777);
    const notices: string[] = [];
    await loadHfTokenizer(embeddedModelDirectory, { cacheDirectory: shared, onNotice: (message) => notices.push(message) });
    assert.deepEqual(notices, []);
  });

  it('refuses a cache folder of another user, and a cache file of another user', {
    skip: isRoot ? false : 'needs root to give a file to another uid',
  }, async () => {
    const owned = await freshCache('owned-folder');
    await writeFile(owned.file, forgedTables(owned.intact), { mode: 0o600 });
    await chown(owned.folder, OTHER_UID, OTHER_UID);
    const notices: string[] = [];
    assert.equal(await encodesLikeReference(owned.folder, (message) => notices.push(message)), true, 'the forged tables were read');
    assert.match(notices.join('\n'), /owned by another user/);

    const file = await freshCache('owned-file');
    await writeFile(file.file, forgedTables(file.intact), { mode: 0o600 });
    await chown(file.file, OTHER_UID, OTHER_UID);
    assert.equal(await encodesLikeReference(file.folder), true, 'the forged tables were read');
    assert.equal((await stat(file.file)).uid, process.getuid!(), 'replaced by a file of this user');
  });

  it('refuses a cache file that is a link, even to a file of this user', async () => {
    const { folder, file, intact } = await freshCache('link');
    const forged = join(directory, 'linked.bin');
    await writeFile(forged, forgedTables(intact), { mode: 0o600 });
    await rm(file);
    await symlink(forged, file);
    assert.equal(await encodesLikeReference(folder), true, 'the linked tables were read');
    assert.ok((await lstat(file)).isFile(), 'the link was replaced by a file of its own');
  });
});

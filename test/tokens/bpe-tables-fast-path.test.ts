import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, copyFile, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, truncate, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { bpeModelFromTables } from '../../src/tokens/bpe-model.fast.js';
import { bpeTables } from '../../src/tokens/bpe-tables.js';
import { defaultCacheDirectory, loadHfTokenizer, TokenizerConfig, type HfTokenizer } from '../../src/tokens/index.js';
import { qwen3Directory } from '../support/qwen3.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * In a process of its own (the notice is said once per process): a library whose BPE model keeps its
 * token → id map behind an accessor instead of as a Map, as another version might. Loads Qwen3's
 * tokenizer twice and prints the ids each gives.
 */
const UPGRADED_LIBRARY = `
  import * as library from '@huggingface/tokenizers';
  import { loadHfTokenizer } from './src/tokens/index.ts';
  import { qwen3Directory } from './test/support/qwen3.ts';
  Object.defineProperty(library.BPE.prototype, 'tokens_to_ids', {
    configurable: true,
    get() {
      const map = this.ids_by_token;
      return { get: (key) => map.get(key), has: (key) => map.has(key), set: (key, value) => map.set(key, value), keys: () => map.keys(), values: () => map.values(), entries: () => map.entries(), [Symbol.iterator]: () => map[Symbol.iterator](), get size() { return map.size; } };
    },
    set(value) { this.ids_by_token = value; },
  });
  const ids = [];
  for (let load = 0; load < 2; load++) ids.push((await loadHfTokenizer(qwen3Directory, { cacheDirectory: false })).encode(${JSON.stringify('hello world, 日本語 😀')}));
  console.log(JSON.stringify(ids));`;

/** Texts where a tokenizer built another way would show: scripts, emoji, whitespace runs, special tokens, digits. */
const corpus = [
  'hello world',
  '  leading and trailing spaces  ',
  'tabs\tand\nnewlines\r\n\n\n   \t \u00a0nbsp',
  `${' '.repeat(37)}x${'\n'.repeat(9)}`,
  'Ünïcödé façade naïve — “quotes” ‘single’ … ½ ß ﬁ Å',
  '日本語のテキストと中文文本，还有한국어 텍스트',
  'العربية עברית हिन्दी ภาษาไทย',
  'emoji 😀👍🏽 👩‍👩‍👧‍👦 🏳️‍🌈 🇯🇵 ❤️',
  'a lone surrogate \ud800 and \udc00 reversed',
  '<|im_start|>user\nwhat is 12+13?<|im_end|>\n<|im_start|>assistant\n',
  '<|im_end|>\n<|im_start|>user\ncorrect<|im_end|>\n<|im_start|>assistant\n',
  '<think>\n\n</think>\n\nThe answer is 25.<|im_end|>',
  '<tool_call>\n{"name": "calc", "arguments": {"expression": "3*4"}}\n</tool_call><|endoftext|>',
  '<|im_start|><|im_end|><|im_start|>',
  '123456789012345678901234567890 3.14159265358979 -0.000001 1e-12 0x1F 1,234,567',
  "it's we'll they're I'M DON'T",
  'camelCaseIdentifiers snake_case_names kebab-case-names __dunder__',
  'def f(x):\n    return x ** 2  # square\n\n\tprint(f"{x!r:>10}")',
  '\u0000\u0001\u001f\u007f control characters',
  'a'.repeat(300),
  '🙂'.repeat(100),
];

describe('the Qwen3 tokenizer built from its tables (cached) and from its JSON', () => {
  let plain: HfTokenizer;
  let cold: HfTokenizer;
  let warm: HfTokenizer;
  let cacheDirectory: string;

  before(async () => {
    cacheDirectory = await mkdtemp(join(tmpdir(), 'gymnast-tokenizer-cache-'));
    plain = await loadHfTokenizer(qwen3Directory, { cacheDirectory: false });
    cold = await loadHfTokenizer(qwen3Directory, { cacheDirectory });
    warm = await loadHfTokenizer(qwen3Directory, { cacheDirectory });
  });
  after(() => rm(cacheDirectory, { recursive: true, force: true }));

  it('writes one cache file, and a second load reads it', async () => {
    assert.equal((await readdir(cacheDirectory)).filter((name) => name.endsWith('.bin')).length, 1);
  });

  it('has the same vocabulary size, bound, stop tokens and special token ids', () => {
    for (const tokenizer of [cold, warm]) {
      assert.equal(tokenizer.vocabSize, plain.vocabSize);
      assert.equal(tokenizer.maxCharsPerToken, plain.maxCharsPerToken);
      assert.deepEqual(tokenizer.stopTokenIds, plain.stopTokenIds);
      for (const token of ['<|im_start|>', '<|im_end|>', '<|endoftext|>', '<think>', '<tool_call>', 'Ġthe', 'nonexistent token'])
        assert.equal(tokenizer.tokenId(token), plain.tokenId(token), token);
    }
  });

  it('encodes and decodes a varied corpus identically', () => {
    for (const text of [...corpus, corpus.join(''), corpus.join('\n')]) {
      const ids = plain.encode(text);
      for (const tokenizer of [cold, warm]) {
        assert.deepEqual(tokenizer.encode(text), ids, text);
        assert.equal(tokenizer.decode(ids), plain.decode(ids), text);
      }
    }
  });

  it('encodes random text identically: every merge rank and token lookup goes through the tables', () => {
    // Seeded: ASCII words and punctuation, Latin-1 and CJK, astral characters and lone surrogates, digits.
    let seed = 13;
    const random = (below: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % below;
    const pieces = [
      () => ' ',
      () => '\n',
      () => String.fromCharCode(97 + random(26)),
      () => String.fromCharCode(0x20 + random(0x5f)),
      () => String.fromCharCode(0xa0 + random(0x160)),
    ];
    pieces.push(
      () => String.fromCharCode(0x4e00 + random(0x5000)),
      () => String.fromCodePoint(0x1f300 + random(0x300)),
      () => String.fromCharCode(0xd800 + random(0x800)),
      () => String(random(100000)),
    );
    for (let text = 0; text < 300; text += 1) {
      let value = '';
      const length = 1 + random(text === 0 ? 5000 : 120);
      while (value.length < length) value += pieces[random(10) < 6 ? 2 : random(pieces.length)]!();
      const ids = plain.encode(value);
      for (const tokenizer of [cold, warm]) assert.deepEqual(tokenizer.encode(value), ids, JSON.stringify(value));
    }
  });

  it('decodes every id of the vocabulary identically, and encodes its text identically', () => {
    const size = plain.vocabSize!;
    for (let start = 0; start < size; start += 500) {
      const ids = Array.from({ length: Math.min(500, size - start) }, (_, index) => start + index);
      const text = plain.decode(ids);
      assert.equal(warm.decode(ids), text, `ids ${start}…`);
      // Encoding is the slow half: a fifth of the vocabulary's text, spread over all of it.
      if (start % 2500 === 0) assert.deepEqual(warm.encode(text), plain.encode(text), `text of ids ${start}…`);
    }
  });

  it('decodes before it ever encodes (its encoding maps are built on first use)', async () => {
    const fresh = await loadHfTokenizer(qwen3Directory, { cacheDirectory });
    const ids = plain.encode(corpus.join('\n'));
    assert.equal(fresh.decode(ids), plain.decode(ids));
    assert.deepEqual(fresh.stopTokenIds, plain.stopTokenIds);
    assert.deepEqual(fresh.encode(corpus.join('\n')), ids);
  });

  it('decodes ids outside the vocabulary as the plain path does (same text or same error)', async () => {
    const fresh = await loadHfTokenizer(qwen3Directory, { cacheDirectory });
    const outcome = (tokenizer: HfTokenizer, ids: number[]) => {
      try {
        return tokenizer.decode(ids);
      } catch (error) {
        return `error: ${(error as Error).message}`;
      }
    };
    for (const ids of [[9707, -1, 1879], [plain.vocabSize!], [plain.vocabSize! - 1, 151643, 9707], [1e9, 9707], [9707, 1.5]]) {
      assert.equal(outcome(fresh, ids), outcome(plain, ids), JSON.stringify(ids));
    }
  });

  it('decodes from its cache exactly what it decodes afresh, for short and long sequences read again and again', async () => {
    const sequences = corpus.map((text) => plain.encode(text)).flatMap((ids) => [ids, ids.slice(0, 1), ids.slice(0, 64), ids.slice(0, 65), ids.slice(1, 9)]);
    // Each distinct sequence decoded once by a new tokenizer: never from its cache.
    const fresh = await loadHfTokenizer(qwen3Directory, { cacheDirectory });
    const afresh = new Map(sequences.map((ids) => [JSON.stringify(ids), fresh.decode(ids)]));
    for (let pass = 0; pass < 3; pass++) {
      for (const ids of sequences) assert.equal(warm.decode(ids), afresh.get(JSON.stringify(ids)), JSON.stringify(ids.slice(0, 8)));
    }
    // A sequence that differs only in a token that splits a character decodes as itself, never as its neighbour.
    const [first, second] = [plain.encode('😀'), plain.encode('😁')];
    assert.equal(warm.decode(first), '😀');
    assert.equal(warm.decode(second), '😁');
  });

  it('hands out copies from its encode cache: a caller changing them changes nothing', () => {
    const text = '<|im_end|>\n<|im_start|>user\ncorrect<|im_end|>\n<|im_start|>assistant\n';
    const first = warm.encode(text);
    first.push(-1);
    first[0] = -2;
    assert.deepEqual(warm.encode(text), plain.encode(text));
  });
});

describe('the tokenizer cache file', () => {
  let directory: string;
  let modelDirectory: string;
  let cacheDirectory: string;
  let reference: HfTokenizer;
  const probe = corpus.join('\n');

  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'gymnast-tokenizer-cache-'));
    modelDirectory = join(directory, 'model');
    cacheDirectory = join(directory, 'cache');
    await mkdir(modelDirectory);
    for (const name of ['tokenizer.json', 'tokenizer_config.json']) await copyFile(join(qwen3Directory, name), join(modelDirectory, name));
    reference = await loadHfTokenizer(modelDirectory, { cacheDirectory: false });
  });
  after(() => rm(directory, { recursive: true, force: true }));

  async function cacheFile(): Promise<string> {
    const names = (await readdir(cacheDirectory)).filter((name) => name.endsWith('.bin'));
    assert.equal(names.length, 1);
    return join(cacheDirectory, names[0]!);
  }

  async function assertLoadsLikeReference(): Promise<void> {
    const tokenizer = await loadHfTokenizer(modelDirectory, { cacheDirectory });
    assert.deepEqual(tokenizer.encode(probe), reference.encode(probe));
    assert.equal(tokenizer.vocabSize, reference.vocabSize);
  }

  it('is ignored and rewritten when damaged: a flipped byte, a truncation, garbage', async () => {
    await assertLoadsLikeReference();
    const file = await cacheFile();
    const intact = await readFile(file);
    const flipped = Buffer.from(intact);
    flipped[flipped.length - 1000]! ^= 0x01;
    for (const damaged of [flipped, intact.subarray(0, intact.length >> 1), Buffer.from('not a cache'), Buffer.alloc(0)]) {
      await writeFile(file, damaged);
      await assertLoadsLikeReference();
      assert.deepEqual(await readFile(await cacheFile()), intact);
    }
    await truncate(file, 64);
    await assertLoadsLikeReference();
  });

  it('is a miss, never an error, when its header is damaged under an intact body', async () => {
    await assertLoadsLikeReference();
    const file = await cacheFile();
    const intact = await readFile(file);
    const end = intact.indexOf(0x0a, intact.indexOf(0x0a) + 1);
    const magic = intact.subarray(0, intact.indexOf(0x0a) + 1).toString('latin1');
    const header = JSON.parse(intact.subarray(magic.length, end).toString('utf8')) as { shell: unknown };
    header.shell = { model: null };
    const head = `${magic}${JSON.stringify(header)}`;
    await writeFile(file, Buffer.concat([Buffer.from(`${head}${' '.repeat((4 - ((Buffer.byteLength(head) + 1) % 4)) % 4)}\n`), intact.subarray(end + 1)]));
    await assertLoadsLikeReference();
    assert.deepEqual(await readFile(await cacheFile()), intact);
  });

  it('is read only when it is a regular file of this user, writable by no one else: a link or a shared-writable file is replaced', async () => {
    await assertLoadsLikeReference();
    const file = await cacheFile();
    const intact = await readFile(file);
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    const planted = join(directory, 'planted.bin');
    await writeFile(planted, intact);
    await rm(file);
    await symlink(planted, file);
    await assertLoadsLikeReference();
    assert.ok((await lstat(file)).isFile(), 'the link was replaced by a file of its own');
    await chmod(file, 0o666);
    await assertLoadsLikeReference();
    assert.equal((await stat(file)).mode & 0o777, 0o600, 'rewritten');
  });

  it('is rebuilt when tokenizer.json changes', async () => {
    await assertLoadsLikeReference();
    const file = await cacheFile();
    const before = (await stat(file)).mtimeMs;
    // The same content with a new modification time: rebuilt (an edit in place shows as this).
    const later = new Date(Date.now() + 5000);
    await utimes(join(modelDirectory, 'tokenizer.json'), later, later);
    await assertLoadsLikeReference();
    assert.notEqual((await stat(await cacheFile())).mtimeMs, before);
  });

  it('a tokenizer.json that is not JSON is reported as before, naming the file', async () => {
    const other = join(directory, 'broken');
    await mkdir(other);
    await copyFile(join(qwen3Directory, 'tokenizer_config.json'), join(other, 'tokenizer_config.json'));
    await writeFile(join(other, 'tokenizer.json'), '{"model": ');
    await assert.rejects(loadHfTokenizer(other, { cacheDirectory }), /tokenizer\.json is not valid JSON/);
  });
});

describe('the default cache folder', () => {
  it('is $GYMNAST_CACHE_DIR, else $XDG_CACHE_HOME/gymnast, else ~/.cache/gymnast; off keeps none', () => {
    assert.equal(defaultCacheDirectory({ GYMNAST_CACHE_DIR: '/somewhere', XDG_CACHE_HOME: '/xdg' }), '/somewhere');
    assert.equal(defaultCacheDirectory({ XDG_CACHE_HOME: '/xdg' }), join('/xdg', 'gymnast'));
    assert.match(defaultCacheDirectory({})!, /[/\\]\.cache[/\\]gymnast$/);
    assert.equal(defaultCacheDirectory({ GYMNAST_CACHE_DIR: 'off' }), undefined);
  });
});

describe('the tokenizer built from tables, guarded against another version of @huggingface/tokenizers', () => {
  it("fills the installed library's BPE model (an upgrade that changes the model's shape fails here)", () => {
    const tables = bpeTables(JSON.parse(readFileSync(join(qwen3Directory, 'tokenizer.json'), 'utf8')));
    const config = TokenizerConfig.parse(JSON.parse(readFileSync(join(qwen3Directory, 'tokenizer_config.json'), 'utf8')));
    assert.ok(tables, "Qwen3's tokenizer.json has tables");
    assert.ok(bpeModelFromTables(tables, config), 'the library is the shape the tables fill');
  });

  it('builds from tokenizer.json when the model is another shape, the same ids, and says so in one line on stderr per process', async () => {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', UPGRADED_LIBRARY], { cwd: root });
    const expected = (await loadHfTokenizer(qwen3Directory, { cacheDirectory: false })).encode('hello world, 日本語 😀');
    assert.deepEqual(JSON.parse(stdout), [expected, expected]);
    const lines = stderr.split('\n').filter((line) => line !== '');
    assert.equal(lines.length, 1, stderr);
    assert.match(
      lines[0]!,
      /^gymnast: fast path "BPE model from tables" is off: @huggingface\/tokenizers 0\.2\.0 \(written for 0\.2\.0\): its BPE model is not the shape .*; falling back to building the tokenizer from tokenizer\.json: same results, slower\. See docs\/fast-paths\.md\.$/,
    );
  });
});

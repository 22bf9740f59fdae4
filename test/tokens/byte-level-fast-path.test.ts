import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { before, describe, it } from 'node:test';
import { Tokenizer as LibraryTokenizer } from '@huggingface/tokenizers';
import { byteLevelSpelling, byteLevelText, installByteLevelFastPath } from '../../src/tokens/byte-level.fast.js';
import { loadHfTokenizer, TokenizerConfig, type HfTokenizer } from '../../src/tokens/index.js';
import { qwen3Directory } from '../support/qwen3.js';

/** Characters where byte-level text preparation could go wrong: every UTF-8 length, NFC's edge, surrogates, whitespace kinds. */
const PALETTE = [
  ...'abcXYZ019 _-.,;:!?\'"()[]{}<>/\\|@#$%^&*+=~`',
  ...["'s", "'LL", "'re", ' ', '  ', '\t', '\n', '\r\n', '\r', '\u000b', '\f', '\u0000', '\u007f', '\u0085', '\u00a0', '\u2028', '\u3000'],
  ...'éÅßøÿĀſƒǄǅɐʰ˿', // below U+0300: NFC leaves these as they are
  ...['\u0301', 'e\u0301', 'A\u030a', '\u0344', '\u0958', '\u212b', '\u2126', '\u1100\u1161', '\uac00', 'ﬁ', '½'], // NFC changes these
  ...'日本語中文한국어العربيةहिन्दी',
  ...['😀', '👍🏽', '👩‍👩‍👧‍👦', '🇯🇵', '\ud800', '\udc00', '\udbff\udfff'],
  ...['<|im_start|>', '<|im_end|>', '<think>', '</tool_call>', '<|endoftext|>'],
];

function randomText(seed: number, length: number): string {
  let state = seed >>> 0 || 1;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  let text = '';
  for (let i = 0; i < length; i++) text += PALETTE[Math.floor(next() * PALETTE.length)];
  return text;
}

/** GPT-2's table character for a byte, computed the library's way (printable bytes themselves, the rest shifted past U+00FF in order). */
function tableCharacter(byte: number): string {
  const printable = (value: number) => (value >= 0x21 && value <= 0x7e) || (value >= 0xa1 && value <= 0xac) || (value >= 0xae && value <= 0xff);
  let shifted = 0;
  for (let value = 0; value < byte; value++) if (!printable(value)) shifted++;
  return String.fromCharCode(printable(byte) ? byte : 256 + shifted);
}
const TABLE = Array.from({ length: 256 }, (_, byte) => tableCharacter(byte));
const BYTE_OF = new Map(TABLE.map((character, byte) => [character, byte]));

/** The library's ByteLevel spelling: UTF-8 by TextEncoder, each byte through the table. */
const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));

/** The shape of tokenizer.json the byte-level steps are for (Qwen3's pre-tokenizer and decoder). */
const QWEN_SHAPE = {
  pre_tokenizer: {
    type: 'Sequence',
    pretokenizers: [
      { type: 'Split', pattern: { Regex: 'x' }, behavior: 'Isolated', invert: false },
      { type: 'ByteLevel', add_prefix_space: false, use_regex: false },
    ],
  },
  decoder: { type: 'ByteLevel' },
};

/**
 * In a process of its own (the notice is said once per process): libraries whose parts are not what
 * the steps were written for, each given to the install twice. Prints what each install returned and
 * whether the library's parts stayed.
 */
const UPGRADED_LIBRARIES = `
  import { installByteLevelFastPath } from './src/tokens/byte-level.fast.ts';
  const shape = ${JSON.stringify(QWEN_SHAPE)};
  const split = Object.assign((text) => text.match(/\\S+|\\s+/g), { tokenizers: [{ pattern: /\\S+|\\s+/g }] });
  const libraries = {
    'a pre-tokenizer without its split pattern': { pre_tokenizer: () => [], decoder: (tokens) => tokens.join(''), added_tokens: [] },
    'a pre-tokenizer that spells pieces otherwise': { pre_tokenizer: split, decoder: null, added_tokens: [] },
    'a decoder that reads tokens otherwise': { pre_tokenizer: null, decoder: (tokens) => tokens.join(' '), added_tokens: [] },
  };
  const results = {};
  for (const [name, library] of Object.entries(libraries)) {
    const before = { ...library };
    const installed = [installByteLevelFastPath(library, shape), installByteLevelFastPath(library, shape)];
    results[name] = { installed, kept: Object.keys(before).every((key) => library[key] === before[key]) };
  }
  console.log(JSON.stringify(results));`;

const librarySpelling = (text: string) => Array.from(new TextEncoder().encode(text), (byte) => TABLE[byte]).join('');

/** The library's ByteLevel reading of one run: each code point through the reversed table (a missing one as byte 0), then UTF-8. */
const libraryText = (spelled: string) =>
  new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(new Uint8Array([...spelled].map((character) => BYTE_OF.get(character) ?? 0)));

describe("byte-level text preparation done directly (Qwen3's, Llama 3's): the library's ids, several times faster", () => {
  let fast: HfTokenizer;
  let library: LibraryTokenizer;

  before(async () => {
    fast = await loadHfTokenizer(qwen3Directory, { cacheDirectory: false });
    const json = JSON.parse(readFileSync(join(qwen3Directory, 'tokenizer.json'), 'utf8')) as object;
    const config = TokenizerConfig.parse(JSON.parse(readFileSync(join(qwen3Directory, 'tokenizer_config.json'), 'utf8')));
    library = new LibraryTokenizer(json, config);
  });

  const libraryIds = (text: string) => library.encode(text, { add_special_tokens: false }).ids;

  it("encodes 2,000 random texts over every UTF-8 length, NFC edge, surrogate and whitespace kind to the library's ids", () => {
    for (let seed = 1; seed <= 2_000; seed++) {
      const text = randomText(seed, 1 + (seed % 97));
      assert.deepEqual(fast.encode(text), libraryIds(text), JSON.stringify(text));
    }
  });

  it("encodes real files (source code, the README) to the library's ids", () => {
    for (const path of ['README.md', 'src/tokens/hf-tokenizer.ts', 'assets/viewer/charts.js']) {
      const text = readFileSync(path, 'utf8');
      assert.deepEqual(fast.encode(text), libraryIds(text), path);
    }
  });

  it('spells every UTF-16 code unit, and pairs of them, as the library does', () => {
    for (let code = 0; code <= 0xffff; code++) {
      const text = String.fromCharCode(code);
      assert.equal(byteLevelSpelling(text), librarySpelling(text), `U+${code.toString(16)}`);
    }
    for (const text of ['😀', 'a\ud800b', '\udc00\ud800', 'plain', ' space', 'tab\t', 'ĠĊ'])
      assert.equal(byteLevelSpelling(text), librarySpelling(text), JSON.stringify(text));
  });

  it('skips NFC only where it changes nothing: every character below U+0300 is its own NFC', () => {
    for (let code = 0; code < 0x300; code++) {
      const text = String.fromCharCode(code);
      assert.equal(text.normalize('NFC'), text, `U+${code.toString(16)}`);
    }
  });

  it("decodes 2,000 random id sequences (any id, added tokens, bytes that are not UTF-8) to the library's text", () => {
    let state = 7;
    const next = () => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return state / 2 ** 32;
    };
    const added = ['<|im_start|>', '<|im_end|>', '<think>', '<|endoftext|>'].map((token) => fast.tokenId(token)!);
    for (let sequence = 0; sequence < 2_000; sequence++) {
      const ids = Array.from({ length: 1 + (sequence % 61) }, () =>
        next() < 0.1 ? added[Math.floor(next() * added.length)]! : Math.floor(next() * fast.vocabSize),
      );
      assert.equal(fast.decode(ids), library.decode(ids, { skip_special_tokens: false, clean_up_tokenization_spaces: false }), ids.join(','));
    }
    const text = readFileSync('README.md', 'utf8');
    assert.equal(fast.decode(fast.encode(text)), text, 'the README round-trips');
  });

  it('reads byte-level text back as the library does: characters outside the table as byte 0, a byte order mark kept', () => {
    for (const spelled of ['ĠhelloĊ', 'Ã©', 'ï»¿bom', 'x😀y', '\ud800', 'Ã', ''])
      assert.equal(byteLevelText(spelled), libraryText(spelled), JSON.stringify(spelled));
  });

  it("leaves other pre-tokenizers to the library (GPT-2's ByteLevel with its own regex, BERT's whitespace)", () => {
    for (const pre_tokenizer of [{ type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true }, { type: 'BertPreTokenizer' }, null]) {
      const implementation = { pre_tokenizer: Object.assign(() => [], { tokenizers: [{ pattern: /x/g }] }), normalizer: null };
      const before = implementation.pre_tokenizer;
      assert.equal(installByteLevelFastPath(implementation, { pre_tokenizer }).encode, false);
      assert.equal(implementation.pre_tokenizer, before);
    }
  });
});

describe('the byte-level steps, guarded against another version of @huggingface/tokenizers', () => {
  it('are put in for Qwen3 by the library installed (an upgrade that changes the parts they replace fails here)', () => {
    const json = JSON.parse(readFileSync(join(qwen3Directory, 'tokenizer.json'), 'utf8')) as object;
    const config = TokenizerConfig.parse(JSON.parse(readFileSync(join(qwen3Directory, 'tokenizer_config.json'), 'utf8')));
    assert.deepEqual(installByteLevelFastPath(new LibraryTokenizer(json, config), json), { encode: true, decode: true });
  });

  it('leave a library whose parts differ to its own steps, and say so in one line on stderr per process, naming the version found', async () => {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', UPGRADED_LIBRARIES], { cwd: root });
    const results = JSON.parse(stdout) as Record<string, { installed: { encode: boolean; decode: boolean }[]; kept: boolean }>;
    for (const [name, { installed, kept }] of Object.entries(results)) {
      assert.ok(kept, `${name}: the library's parts stay`);
      for (const steps of installed) assert.deepEqual(steps, { encode: false, decode: false }, name);
    }
    const lines = stderr.split('\n').filter((line) => line !== '');
    assert.equal(lines.length, 1, stderr);
    assert.match(
      lines[0]!,
      /^gymnast: fast path "byte-level tokenizer steps" is off: @huggingface\/tokenizers 0\.2\.0 \(written for 0\.2\.0\): its pre-tokenizer .*; falling back to the library's own byte-level steps: same results, slower\. See docs\/fast-paths\.md\.$/,
    );
  });
});

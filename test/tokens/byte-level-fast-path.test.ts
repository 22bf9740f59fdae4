import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { Tokenizer as LibraryTokenizer } from '@huggingface/tokenizers';
import { byteLevelSpelling, installByteLevelFastPath } from '../../src/tokens/byte-level-fast-path.js';
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
  const next = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0), state / 2 ** 32);
  let text = '';
  for (let i = 0; i < length; i++) text += PALETTE[Math.floor(next() * PALETTE.length)];
  return text;
}

/** The library's own ByteLevel spelling: UTF-8 by TextEncoder, each byte through GPT-2's table. */
function librarySpelling(text: string): string {
  const printable = (byte: number) => (byte >= 0x21 && byte <= 0x7e) || (byte >= 0xa1 && byte <= 0xac) || (byte >= 0xae && byte <= 0xff);
  const table: string[] = [];
  let shifted = 0;
  for (let byte = 0; byte < 256; byte++) table.push(String.fromCharCode(printable(byte) ? byte : 256 + shifted++));
  return Array.from(new TextEncoder().encode(text), (byte) => table[byte]).join('');
}

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

  it('encodes 2,000 random texts over every UTF-8 length, NFC edge, surrogate and whitespace kind to the library\'s ids', () => {
    for (let seed = 1; seed <= 2_000; seed++) {
      const text = randomText(seed, 1 + (seed % 97));
      assert.deepEqual(fast.encode(text), libraryIds(text), JSON.stringify(text));
    }
  });

  it('encodes real files (source code, the README) to the library\'s ids', () => {
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
    for (const text of ['😀', 'a\ud800b', '\udc00\ud800', 'plain', ' space', 'tab\t', 'ĠĊ']) assert.equal(byteLevelSpelling(text), librarySpelling(text), JSON.stringify(text));
  });

  it('skips NFC only where it changes nothing: every character below U+0300 is its own NFC', () => {
    for (let code = 0; code < 0x300; code++) {
      const text = String.fromCharCode(code);
      assert.equal(text.normalize('NFC'), text, `U+${code.toString(16)}`);
    }
  });

  it('leaves other pre-tokenizers to the library (GPT-2\'s ByteLevel with its own regex, BERT\'s whitespace)', () => {
    for (const pre_tokenizer of [{ type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true }, { type: 'BertPreTokenizer' }, null]) {
      const implementation = { pre_tokenizer: Object.assign(() => [], { tokenizers: [{ pattern: /x/g }] }), normalizer: null };
      const before = implementation.pre_tokenizer;
      assert.equal(installByteLevelFastPath(implementation, { pre_tokenizer }), false);
      assert.equal(implementation.pre_tokenizer, before);
    }
  });
});

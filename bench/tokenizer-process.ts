import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer as LibraryTokenizer } from '@huggingface/tokenizers';
import { loadHfTokenizer, TokenizerConfig } from '../src/tokens/index.js';
import { qwen3Directory } from '../test/support/qwen3.js';
import { perCall } from './per-call.js';

/**
 * One way of tokenizing, in a process of its own (the ways share the library's code, and a call site
 * that has seen two of them is slower for both): `library` (@huggingface/tokenizers as it is), `json`
 * (gymnast's tokenizer built from tokenizer.json: the byte-level steps put in), `tables` (built from
 * the cached tables in `argv[3]`: the byte-level steps and the tables' maps). Encodes and decodes 8 KB
 * of code; prints `{"tokens", "encode_us", "decode_us"}` (µs per token, the best of the rounds).
 */
const TEXT = readFileSync(new URL('../src/tokens/hf-tokenizer.ts', import.meta.url), 'utf8').slice(0, 8_192);
const [way, cacheDirectory] = process.argv.slice(2);

async function codec(): Promise<{ encode: () => number[]; decode: (ids: number[]) => string }> {
  if (way === 'library') {
    const json = JSON.parse(readFileSync(join(qwen3Directory, 'tokenizer.json'), 'utf8')) as object;
    const config = TokenizerConfig.parse(JSON.parse(readFileSync(join(qwen3Directory, 'tokenizer_config.json'), 'utf8')));
    const library = new LibraryTokenizer(json, config);
    return {
      encode: () => library.encode(TEXT, { add_special_tokens: false }).ids,
      decode: (ids) => library.decode(ids, { skip_special_tokens: false, clean_up_tokenization_spaces: false }),
    };
  }
  if (way !== 'json' && way !== 'tables') throw new Error(`tokenizer-process: no way ${way}`);
  const tokenizer = await loadHfTokenizer(qwen3Directory, { cacheDirectory: way === 'tables' ? cacheDirectory! : false });
  // Longer than the texts and id lists gymnast's tokenizer remembers: every call does the work.
  return { encode: () => tokenizer.encode(TEXT), decode: (ids) => tokenizer.decode(ids) };
}

const { encode, decode } = await codec();
const ids = encode();
const measured = perCall({ encode, decode: () => decode(ids) });
process.stdout.write(
  JSON.stringify({ tokens: ids.length, encode_us: measured.encode / ids.length, decode_us: measured.decode / ids.length, text: decode(ids) === TEXT }),
);

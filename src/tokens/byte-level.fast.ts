// Fast path: mirrors @huggingface/tokenizers 0.2.0's ByteLevel steps; encode 3.0×, decode 12× faster (docs/fast-paths.md#byte-level); guard: test/tokens/byte-level-fast-path.test.ts.
import { z } from 'zod';
import { sayFastPathOff } from '../util/fast-path-off.js';

/**
 * GPT-2's byte-to-character table, as byte-level BPE tokenizers (GPT-2, Llama 3, Qwen) spell bytes:
 * printable bytes stand for themselves, the others are shifted past U+00FF.
 */
const BYTE_CHARACTERS: readonly string[] = (() => {
  const printable = (byte: number) => (byte >= 0x21 && byte <= 0x7e) || (byte >= 0xa1 && byte <= 0xac) || (byte >= 0xae && byte <= 0xff);
  let shifted = 0;
  return Array.from({ length: 256 }, (_, byte) => String.fromCharCode(printable(byte) ? byte : 256 + shifted++));
})();

const utf8 = new TextEncoder();
// As the library's decoder: invalid bytes become U+FFFD, a leading byte order mark is kept.
const utf8Decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** Table character → byte; any other character reads as byte 0, as the library's lookup gives. */
const BYTE_OF_CHARACTER: Int16Array = (() => {
  const table = new Int16Array(0x200).fill(0);
  BYTE_CHARACTERS.forEach((character, byte) => (table[character.charCodeAt(0)] = byte));
  return table;
})();

/**
 * A pre-token spelled in byte-level characters: the UTF-8 bytes of `text`, each as its table character.
 * ASCII text is copied in runs of printable characters, which stand for themselves (" the" is "Ġ" + "the").
 */
export function byteLevelSpelling(text: string): string {
  let spelled = '';
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) return spellBytes(utf8.encode(text));
    if (code >= 0x21 && code <= 0x7e) continue;
    spelled += text.slice(run, i) + BYTE_CHARACTERS[code];
    run = i + 1;
  }
  return run === 0 ? text : spelled + text.slice(run);
}

function spellBytes(bytes: Uint8Array): string {
  let spelled = '';
  for (const byte of bytes) spelled += BYTE_CHARACTERS[byte];
  return spelled;
}

/** Byte-level text back to the text it spells: its UTF-8 bytes decoded, one byte per code point. */
export function byteLevelText(spelled: string): string {
  const bytes = new Uint8Array(spelled.length);
  let length = 0;
  for (let i = 0; i < spelled.length; i++) {
    const code = spelled.charCodeAt(i);
    // A surrogate pair is one code point outside the table: one byte 0.
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < spelled.length) {
      const next = spelled.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i += 1;
    }
    bytes[length++] = code < BYTE_OF_CHARACTER.length ? BYTE_OF_CHARACTER[code]! : 0;
  }
  return utf8Decoder.decode(bytes.subarray(0, length));
}

/** The pre-tokenizer of Qwen2/3, Llama 3 and DeepSeek: split by one regex (the pieces and what lies between them kept), then byte-level. */
const SplitThenByteLevel = z.object({
  type: z.literal('Sequence'),
  pretokenizers: z.tuple([
    z.looseObject({ type: z.literal('Split'), pattern: z.looseObject({ Regex: z.string() }), behavior: z.literal('Isolated'), invert: z.literal(false) }),
    z.looseObject({ type: z.literal('ByteLevel'), add_prefix_space: z.literal(false), use_regex: z.literal(false) }),
  ]),
});

const ByteLevelDecoder = z.looseObject({ type: z.literal('ByteLevel') });

/** What the fast path relies on of @huggingface/tokenizers' Tokenizer (checked before use). */
interface TextPreparation {
  normalizer: ((text: string) => string) | null;
  pre_tokenizer: ((text: string, options?: unknown) => string[]) | null;
  decoder: (((tokens: (string | undefined)[]) => string) & { end_of_word_suffix?: unknown }) | null;
  added_tokens: { content?: unknown }[];
  /** Ids to text: the tokens looked up in `model.vocab` (or `model.unk_token`), through the decoder. */
  decode: (ids: readonly number[], options?: DecodeOptions) => string;
  model: { vocab?: unknown; unk_token?: unknown };
}

interface DecodeOptions {
  skip_special_tokens?: boolean;
  clean_up_tokenization_spaces?: boolean;
}

/** The library version these steps were written for and measured against. */
const WRITTEN_FOR = '0.2.0';

/**
 * Text each step is tried on before it is put in, against the library's own: every UTF-8 length, a
 * contraction, digits, runs of spaces and newlines, and bytes that are not UTF-8 when decoded.
 */
const PROBE_TEXT = "It's 2024:\n  déjà vu — 日本語 😀\t\tx  \r\n";
const PROBE_TOKENS = ['It', "'s", 'Ġ2024', ':Ċ', 'ĠĠ', 'dÃ©', 'jÃł', 'Ġæĭ', 'ĠðŁĺ', 'Ģ', 'ĉĉ', 'x', 'ĠĠčĊ'];

/** Says once that the library is not the shape the byte-level steps were written for; its own steps stay. */
function off(reason: string): false {
  sayFastPathOff({
    fastPath: 'byte-level tokenizer steps',
    library: '@huggingface/tokenizers',
    writtenFor: WRITTEN_FOR,
    reason,
    slowPath: "the library's own byte-level steps",
  });
  return false;
}

/**
 * Replaces @huggingface/tokenizers' byte-level steps, where the tokenizer's JSON says they are the
 * usual ones, with the same steps done directly. Encoding spent about 40% of its time turning each
 * pre-token into bytes (a TextEncoder call, an array and a join per word) and flattening arrays
 * between the two pre-tokenizers, and normalized text that cannot change (NFC leaves text below
 * U+0300 as it is); the split itself stays the library's own regex. Decoding looked every token up
 * among the added tokens one by one and every character up in an object. Anything else is left to
 * the library. Where the JSON says the steps are the usual ones but the library's parts are not the
 * shape they were written for, or give other pieces or text on a probe, the library's steps stay and
 * one line on stderr says so (`sayFastPathOff`). Returns which steps were replaced.
 */
export function installByteLevelFastPath(implementation: object, tokenizerJson: object): { encode: boolean; decode: boolean } {
  const json = tokenizerJson as { normalizer?: unknown; pre_tokenizer?: unknown; decoder?: unknown };
  return { encode: installEncode(implementation as Partial<TextPreparation>, json), decode: installDecode(implementation as Partial<TextPreparation>, json) };
}

function installEncode(parts: Partial<TextPreparation>, json: { normalizer?: unknown; pre_tokenizer?: unknown }): boolean {
  if (!SplitThenByteLevel.safeParse(json.pre_tokenizer).success) return false;
  const library = parts.pre_tokenizer;
  const pattern = (library as { tokenizers?: { pattern?: unknown }[] } | null | undefined)?.tokenizers?.[0]?.pattern;
  if (typeof library !== 'function' || !(pattern instanceof RegExp) || !pattern.global)
    return off('its pre-tokenizer is not a function whose first part splits by a global regex (tokenizers[0].pattern)');
  const direct = (text: string) => splitIsolated(text, pattern).map(byteLevelSpelling);
  if (
    !sameList(
      direct(PROBE_TEXT),
      probe(() => library(PROBE_TEXT, { section_index: 0 })),
    )
  )
    return off('its pre-tokenizer spells a probe text otherwise');
  parts.pre_tokenizer = direct;
  if (isNfc(json.normalizer) && typeof parts.normalizer === 'function') {
    const normalize = parts.normalizer;
    parts.normalizer = (text: string) => (/[^\u0000-\u02ff]/.test(text) ? normalize(text) : text);
  }
  return true;
}

/** Tokens back to text as the library's ByteLevel decoder gives it: added tokens as they are, runs of the others through their bytes. */
function installDecode(parts: Partial<TextPreparation>, json: { decoder?: unknown }): boolean {
  if (!ByteLevelDecoder.safeParse(json.decoder).success) return false;
  const library = parts.decoder;
  const added = parts.added_tokens;
  if (typeof library !== 'function' || !Array.isArray(added)) return off('its decoder is not a function beside a list of added tokens');
  const addedContents = new Set(added.map((token) => token.content));
  const direct = (tokens: (string | undefined)[]) => {
    let text = '';
    let run: (string | undefined)[] = [];
    for (const token of tokens) {
      if (!addedContents.has(token)) {
        run.push(token);
        continue;
      }
      if (run.length > 0) text += byteLevelText(run.join(''));
      run = [];
      text += token;
    }
    return run.length > 0 ? text + byteLevelText(run.join('')) : text;
  };
  const tokens = [
    ...PROBE_TOKENS,
    ...added
      .slice(0, 2)
      .map((token) => token.content)
      .filter((content): content is string => typeof content === 'string'),
  ];
  if (direct(tokens) !== probe(() => library(tokens))) return off('its decoder reads probe tokens otherwise');
  parts.decoder = Object.assign(direct, { end_of_word_suffix: library.end_of_word_suffix });
  installIdDecode(parts, addedContents);
  return true;
}

/** Bytes of the text being decoded, reused across decodes (one decode runs at a time). */
let decodeBytes: Uint8Array = new Uint8Array(4096);

/** `TokenBytes.length` of an id not looked up yet, of an added token (its text as it is), of one without a token. */
const UNREAD = -1;
const ADDED = -2;
const NONE = -3;

/** Each id's bytes, once worked out, in one pool: a typed array a token would cost more than its bytes. */
interface TokenBytes {
  start: Int32Array;
  length: Int32Array;
  pool: Uint8Array;
  used: number;
}

/**
 * Ids straight to text, for the options gymnast decodes with (special tokens kept, no clean-up): the
 * library's decode looks each id up, joins the tokens of a run into one string and turns that string
 * back into bytes character by character, on every decode; here each id's bytes are worked out once
 * and copied. The same text: a run's bytes are the concatenation of its tokens' bytes, since a
 * byte-level token spells whole bytes (a token holding a surrogate, which could pair across tokens,
 * goes to the library). Other options, and ids outside the vocabulary's range, go to the library too.
 */
function installIdDecode(parts: Partial<TextPreparation>, addedContents: ReadonlySet<unknown>): void {
  const library = parts.decode;
  const model = parts.model;
  if (typeof library !== 'function' || !model || !Array.isArray(model.vocab)) return;
  const vocab = model.vocab as unknown[];
  const size = vocab.length;
  const bytes: TokenBytes = { start: new Int32Array(size), length: new Int32Array(size).fill(UNREAD), pool: new Uint8Array(1 << 16), used: 0 };
  parts.decode = function decode(this: unknown, ids: readonly number[], options?: DecodeOptions): string {
    const plain = !options?.skip_special_tokens && options?.clean_up_tokenization_spaces === false && !parts.decoder?.end_of_word_suffix;
    if (!plain || ids.length === 0 || model.vocab !== vocab) return library.call(this, ids, options);
    let text = '';
    let length = 0;
    for (let index = 0; index < ids.length; index++) {
      const id = ids[index]!;
      if (!Number.isInteger(id) || id < 0 || id >= size) return library.call(this, ids, options);
      let count = bytes.length[id]!;
      // An id without a token reads as the unknown token, through the library: a vocabulary built
      // from tables fills an id's token in before its first decode, so an id read stays read.
      if (count === UNREAD) count = readToken(bytes, id, vocab[id], addedContents);
      if (count === NONE) return library.call(this, ids, options);
      if (count === ADDED) {
        if (length > 0) text += utf8Decoder.decode(decodeBytes.subarray(0, length));
        length = 0;
        text += vocab[id] as string;
        continue;
      }
      if (length + count > decodeBytes.length) decodeBytes = grown(decodeBytes, length + count, length);
      const { pool } = bytes;
      for (let at = bytes.start[id]!, end = at + count; at < end; at++) decodeBytes[length++] = pool[at]!;
    }
    return length > 0 ? text + utf8Decoder.decode(decodeBytes.subarray(0, length)) : text;
  };
}

/**
 * Works out what `token` (id `id`'s) adds to the text, and returns its `TokenBytes.length`: an added
 * token is its text as it is; another its bytes, as `byteLevelText` reads them; no token, an empty
 * one or one holding a surrogate is left to the library.
 */
function readToken(bytes: TokenBytes, id: number, token: unknown, addedContents: ReadonlySet<unknown>): number {
  if (typeof token !== 'string' || token.length === 0) return NONE;
  if (addedContents.has(token)) return (bytes.length[id] = ADDED);
  for (let i = 0; i < token.length; i++) {
    const code = token.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdfff) return (bytes.length[id] = NONE);
  }
  if (bytes.used + token.length > bytes.pool.length) bytes.pool = grown(bytes.pool, bytes.used + token.length, bytes.used);
  bytes.start[id] = bytes.used;
  for (let i = 0; i < token.length; i++) {
    const code = token.charCodeAt(i);
    bytes.pool[bytes.used++] = code < BYTE_OF_CHARACTER.length ? BYTE_OF_CHARACTER[code]! : 0;
  }
  return (bytes.length[id] = token.length);
}

/** A copy of `bytes` at least `needed` long, its first `used` bytes kept. */
function grown(bytes: Uint8Array, needed: number, used: number): Uint8Array {
  const larger = new Uint8Array(Math.max(needed, 2 * bytes.length));
  larger.set(bytes.subarray(0, used));
  return larger;
}

/** What a library step gives on a probe, or undefined when it throws (which the direct step never does). */
function probe<T>(step: () => T): T | undefined {
  try {
    return step();
  } catch {
    return undefined;
  }
}

function sameList(ours: readonly string[], theirs: unknown): boolean {
  return Array.isArray(theirs) && theirs.length === ours.length && ours.every((piece, i) => piece === theirs[i]);
}

const isNfc = (normalizer: unknown) => typeof normalizer === 'object' && normalizer !== null && (normalizer as { type?: unknown }).type === 'NFC';

/** The regex's matches and the text between them, in order, empty pieces left out (the library's `Isolated` split). */
function splitIsolated(text: string, pattern: RegExp): string[] {
  const pieces: string[] = [];
  let from = 0;
  for (const match of text.matchAll(pattern)) {
    if (from < match.index) pieces.push(text.slice(from, match.index));
    if (match[0].length > 0) pieces.push(match[0]);
    from = match.index + match[0].length;
  }
  if (from < text.length) pieces.push(text.slice(from));
  return pieces;
}

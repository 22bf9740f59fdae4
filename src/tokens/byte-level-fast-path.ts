import { z } from 'zod';

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

/** A pre-token spelled in byte-level characters: the UTF-8 bytes of `text`, each as its table character. */
export function byteLevelSpelling(text: string): string {
  let plain = true;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) return spellBytes(utf8.encode(text));
    if (code < 0x21 || code > 0x7e) plain = false;
  }
  if (plain) return text;
  let spelled = '';
  for (let i = 0; i < text.length; i++) spelled += BYTE_CHARACTERS[text.charCodeAt(i)];
  return spelled;
}

function spellBytes(bytes: Uint8Array): string {
  let spelled = '';
  for (const byte of bytes) spelled += BYTE_CHARACTERS[byte];
  return spelled;
}

/** The pre-tokenizer of Qwen2/3, Llama 3 and DeepSeek: split by one regex (the pieces and what lies between them kept), then byte-level. */
const SplitThenByteLevel = z.object({
  type: z.literal('Sequence'),
  pretokenizers: z.tuple([
    z.looseObject({ type: z.literal('Split'), pattern: z.looseObject({ Regex: z.string() }), behavior: z.literal('Isolated'), invert: z.literal(false) }),
    z.looseObject({ type: z.literal('ByteLevel'), add_prefix_space: z.literal(false), use_regex: z.literal(false) }),
  ]),
});

/** What the fast path relies on of @huggingface/tokenizers' Tokenizer (checked before use). */
interface TextPreparation {
  normalizer: ((text: string) => string) | null;
  pre_tokenizer: ((text: string, options?: unknown) => string[]) | null;
}

/**
 * Replaces @huggingface/tokenizers' text preparation, where the tokenizer's JSON says it is the usual
 * byte-level one, with the same steps done directly: it spent about 40% of `encode` turning each
 * pre-token into bytes (a TextEncoder call, an array and a join per word) and flattening arrays
 * between the two pre-tokenizers, and normalizing text that cannot change (NFC leaves text below
 * U+0300 as it is). The split itself is still the library's own regex. Anything else is left alone.
 * Returns whether the fast path was installed.
 */
export function installByteLevelFastPath(implementation: object, tokenizerJson: object): boolean {
  const parts = implementation as Partial<TextPreparation> & { pre_tokenizer?: { tokenizers?: { pattern?: unknown }[] } };
  const json = tokenizerJson as { normalizer?: unknown; pre_tokenizer?: unknown };
  const shape = SplitThenByteLevel.safeParse(json.pre_tokenizer);
  const pattern = parts.pre_tokenizer?.tokenizers?.[0]?.pattern;
  if (!shape.success || !(pattern instanceof RegExp) || !pattern.global || typeof parts.pre_tokenizer !== 'function') return false;
  parts.pre_tokenizer = (text: string) => splitIsolated(text, pattern).map(byteLevelSpelling);
  if (isNfc(json.normalizer) && typeof parts.normalizer === 'function') {
    const normalize = parts.normalizer;
    parts.normalizer = (text: string) => (/[^\u0000-\u02ff]/.test(text) ? normalize(text) : text);
  }
  return true;
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

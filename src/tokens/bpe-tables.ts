import { createHash } from 'node:crypto';

/**
 * A BPE `tokenizer.json` split into its two big tables and the small rest: what `HfTokenizer` needs
 * to build the same tokenizer without parsing 11 MB of JSON and without @huggingface/tokenizers'
 * slow constructor steps (`Object.entries` of a 150k-key object, a `JSON.stringify` per merge).
 * The tables keep the library's own orders and keys, so the tokenizer built from them is the same:
 * vocabulary entries in `Object.entries` order (duplicates resolve as in the library's `Map`), each
 * merge as the key the library ranks it by (`JSON.stringify` of the pair).
 */
export interface BpeTables {
  /** `tokenizer.json` with `model.vocab` and `model.merges` emptied. */
  readonly shell: { model: Record<string, unknown> } & Record<string, unknown>;
  readonly tokens: readonly string[];
  /** The id of `tokens[i]`. */
  readonly ids: Int32Array;
  readonly mergeKeys: readonly string[];
}

/** The tables of a parsed BPE `tokenizer.json`; undefined for any other model, or a shape the library reads differently. */
export function bpeTables(json: unknown): BpeTables | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const model = (json as { model?: unknown }).model;
  if (typeof model !== 'object' || model === null || Array.isArray(model)) return undefined;
  const { type, vocab, merges } = model as { type?: unknown; vocab?: unknown; merges?: unknown };
  // Without `type: "BPE"` the library guesses the model from other fields: left to it.
  if (type !== 'BPE' || typeof vocab !== 'object' || vocab === null || Array.isArray(vocab) || !Array.isArray(merges)) return undefined;
  const entries = Object.entries(vocab);
  const ids = new Int32Array(entries.length);
  const tokens: string[] = new Array<string>(entries.length);
  for (let index = 0; index < entries.length; index += 1) {
    const [token, id] = entries[index]!;
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id > 0x7fffffff) return undefined;
    tokens[index] = token;
    ids[index] = id;
  }
  // As the library reads them: pairs as given (new format) when the first is an array, else "a b" split once.
  const pairs = Array.isArray(merges[0]) ? merges : merges.map((merge: unknown) => (typeof merge === 'string' ? merge.split(' ', 2) : undefined));
  if (!pairs.every((pair) => Array.isArray(pair))) return undefined;
  const mergeKeys = pairs.map((pair) => JSON.stringify(pair));
  return { shell: { ...(json as Record<string, unknown>), model: { ...model, vocab: {}, merges: [] } }, tokens, ids, mergeKeys };
}

const MAGIC = 'gymnast-bpe-tables-1\n';

/**
 * The tables as bytes: a header line of JSON (`about`, the shell, counts, a SHA-256 of the body),
 * then the body: ids (int32), token lengths and merge-key lengths (uint32, UTF-16 units), and all
 * tokens and merge keys as one UTF-16 text, which holds any string exactly (lone surrogates too).
 */
export function encodeBpeTables(tables: BpeTables, about: unknown): Buffer {
  const { tokens, ids, mergeKeys } = tables;
  const lengths = new Uint32Array(tokens.length + mergeKeys.length);
  tokens.forEach((token, index) => (lengths[index] = token.length));
  mergeKeys.forEach((key, index) => (lengths[tokens.length + index] = key.length));
  const text = Buffer.from(tokens.join('') + mergeKeys.join(''), 'utf16le');
  const body = Buffer.concat([new Uint8Array(ids.buffer, ids.byteOffset, ids.byteLength), new Uint8Array(lengths.buffer), text]);
  const header = JSON.stringify({ about, shell: tables.shell, tokens: tokens.length, merges: mergeKeys.length, sha256: sha256(body) });
  // The body starts on a 4-byte boundary, so its numbers can be read in place.
  const head = Buffer.from(`${MAGIC}${header}\n`, 'utf8');
  const padding = Buffer.alloc((4 - (head.length % 4)) % 4, 0x20);
  return Buffer.concat([head.subarray(0, head.length - 1), padding, Buffer.from('\n'), body]);
}

/** The tables in `bytes`, or undefined when they are not tables written for `about`, or are damaged. */
export function decodeBpeTables(bytes: Buffer, about: unknown): BpeTables | undefined {
  if (bytes.toString('latin1', 0, MAGIC.length) !== MAGIC) return undefined;
  const end = bytes.indexOf(0x0a, MAGIC.length);
  if (end < 0 || (end + 1) % 4 !== 0) return undefined;
  let header: { about: unknown; shell: BpeTables['shell']; tokens: number; merges: number; sha256: string };
  try {
    header = JSON.parse(bytes.toString('utf8', MAGIC.length, end)) as typeof header;
  } catch {
    return undefined;
  }
  if (JSON.stringify(header.about) !== JSON.stringify(about) || !Number.isSafeInteger(header.tokens) || !Number.isSafeInteger(header.merges)) return undefined;
  const body = bytes.subarray(end + 1);
  const numbers = 4 * (2 * header.tokens + header.merges);
  if (body.length < numbers || (body.length - numbers) % 2 !== 0 || sha256(body) !== header.sha256) return undefined;
  // A Buffer from readFile may sit at any offset of a shared pool: copied when not aligned.
  const aligned = body.byteOffset % 4 === 0 ? body : Buffer.from(body);
  const ids = new Int32Array(aligned.buffer, aligned.byteOffset, header.tokens);
  const lengths = new Uint32Array(aligned.buffer, aligned.byteOffset + 4 * header.tokens, header.tokens + header.merges);
  const text = aligned.toString('utf16le', numbers);
  const strings: string[] = new Array<string>(lengths.length);
  let at = 0;
  for (let index = 0; index < lengths.length; index += 1) {
    strings[index] = text.slice(at, at + lengths[index]!);
    at += lengths[index]!;
  }
  if (at !== text.length) return undefined;
  return { shell: header.shell, tokens: strings.slice(0, header.tokens), ids: ids.slice(), mergeKeys: strings.slice(header.tokens) };
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

import { createHash } from 'node:crypto';
import { StringTable } from './string-table.js';

/**
 * A BPE `tokenizer.json` split into its two big tables and the small rest: what `HfTokenizer` needs
 * to build the same tokenizer without parsing 11 MB of JSON and without @huggingface/tokenizers'
 * slow constructor steps (`Object.entries` of a 150k-key object, a `JSON.stringify` per merge, two
 * 150k-entry maps). The tables keep the library's own orders and keys, so the tokenizer built from
 * them is the same: vocabulary entries in `Object.entries` order (duplicates resolve as in the
 * library's `Map`), each merge as the key the library ranks it by (`JSON.stringify` of the pair).
 */
export interface BpeTables {
  /** `tokenizer.json` with `model.vocab` and `model.merges` emptied. */
  readonly shell: { model: Record<string, unknown> } & Record<string, unknown>;
  readonly tokens: StringTable;
  /** The id of `tokens`' `i`th string. */
  readonly ids: Int32Array;
  /** Merge keys in rank order. */
  readonly merges: StringTable;
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
  return {
    shell: { ...(json as Record<string, unknown>), model: { ...model, vocab: {}, merges: [] } },
    tokens: StringTable.of(tokens),
    ids,
    merges: StringTable.of(mergeKeys),
  };
}

const MAGIC = 'gymnast-bpe-tables-3\n';
const DIGEST_BYTES = 32;

/** The body's arrays in file order, each a whole number of 4-byte words but the two texts (last). */
function bodyArrays(tables: BpeTables): ArrayBufferView[] {
  const { tokens, ids, merges } = tables;
  return [ids, tokens.offsets, tokens.slots, merges.offsets, merges.slots, tokens.text, merges.text];
}

/**
 * The tables as bytes: a header line of JSON (`about`, the shell, the arrays' lengths), then the
 * body: the arrays of `bodyArrays` one after another, as they are in memory (little-endian, as every
 * platform Node runs on), so `decodeBpeTables` uses them in place; last, the SHA-256 of all that. The
 * header is covered too: its shell holds the special tokens, so a changed byte there changes ids.
 */
export function encodeBpeTables(tables: BpeTables, about: unknown): Buffer {
  const body = Buffer.concat(bodyArrays(tables).map((array) => new Uint8Array(array.buffer, array.byteOffset, array.byteLength)));
  const lengths = bodyArrays(tables).map((array) => (array as Uint8Array).length);
  const header = JSON.stringify({ about, shell: tables.shell, lengths });
  // The body starts on a 4-byte boundary, so its numbers can be read in place.
  const head = Buffer.from(`${MAGIC}${header}\n`, 'utf8');
  const padding = Buffer.alloc((4 - (head.length % 4)) % 4, 0x20);
  const covered = Buffer.concat([head.subarray(0, head.length - 1), padding, Buffer.from('\n'), body]);
  return Buffer.concat([covered, sha256(covered)]);
}

/** The tables in `bytes` (which they then share), or undefined when they are not tables written for `about`, or are damaged. */
export function decodeBpeTables(bytes: Buffer, about: unknown): BpeTables | undefined {
  if (bytes.length < MAGIC.length + DIGEST_BYTES || bytes.toString('latin1', 0, MAGIC.length) !== MAGIC) return undefined;
  const covered = bytes.subarray(0, bytes.length - DIGEST_BYTES);
  if (!sha256(covered).equals(bytes.subarray(covered.length))) return undefined;
  const end = covered.indexOf(0x0a, MAGIC.length);
  if (end < 0 || (end + 1) % 4 !== 0) return undefined;
  let header: { about: unknown; shell: BpeTables['shell']; lengths: unknown };
  try {
    header = JSON.parse(covered.toString('utf8', MAGIC.length, end)) as typeof header;
  } catch {
    return undefined;
  }
  const { lengths, shell } = header;
  if (typeof shell !== 'object' || shell === null || typeof shell.model !== 'object' || shell.model === null) return undefined;
  if (
    JSON.stringify(header.about) !== JSON.stringify(about) ||
    !Array.isArray(lengths) ||
    lengths.length !== 7 ||
    !lengths.every((length) => Number.isSafeInteger(length) && length >= 0)
  )
    return undefined;
  const [idCount, tokenOffsets, tokenSlots, mergeOffsets, mergeSlots, tokenText, mergeText] = lengths as number[];
  const body = covered.subarray(end + 1);
  if (body.length !== 4 * (idCount! + tokenOffsets! + tokenSlots! + mergeOffsets! + mergeSlots!) + 2 * (tokenText! + mergeText!)) return undefined;
  // A Buffer from readFile may sit at any offset of a shared pool: copied when not aligned.
  const aligned = body.byteOffset % 4 === 0 ? body : Buffer.from(body);
  let at = aligned.byteOffset;
  const next = <T>(View: new (buffer: ArrayBufferLike, offset: number, length: number) => T & { byteLength: number }, length: number): T => {
    const view = new View(aligned.buffer, at, length);
    at += view.byteLength;
    return view;
  };
  const ids = next(Int32Array, idCount!);
  const [tokenStarts, tokenIndex, mergeStarts, mergeIndex] = [
    next(Uint32Array, tokenOffsets!),
    next(Int32Array, tokenSlots!),
    next(Uint32Array, mergeOffsets!),
    next(Int32Array, mergeSlots!),
  ];
  const tokens = new StringTable(next(Uint16Array, tokenText!), tokenStarts, tokenIndex);
  const merges = new StringTable(next(Uint16Array, mergeText!), mergeStarts, mergeIndex);
  if (!consistent(tokens) || !consistent(merges) || tokens.size !== idCount) return undefined;
  return { shell: header.shell, tokens, ids, merges };
}

/** Offsets that end at the text's end, and a slot count that is a power of two: what the SHA-256 cannot vouch for (a writer's bug). */
function consistent(table: StringTable): boolean {
  const { text, offsets, slots } = table;
  return (
    offsets.length > 0 &&
    offsets[0] === 0 &&
    offsets[offsets.length - 1] === text.length &&
    slots.length > table.size &&
    (slots.length & (slots.length - 1)) === 0
  );
}

function sha256(bytes: Uint8Array): Buffer {
  return createHash('sha256').update(bytes).digest();
}

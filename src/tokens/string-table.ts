/**
 * A fixed list of strings and an index from string to position, kept in three typed arrays (UTF-16
 * text, start offsets, open-addressing hash slots) that can be written to a file and used from its
 * bytes in place: a lookup hashes and compares the key's code units against the text, so loading
 * builds no strings and no `Map` (Qwen3's 150k tokens and 150k merges: ~100 ms of building and GC).
 * Equal strings resolve to the last position, as a `Map` built from the list in order would.
 */
export class StringTable {
  /** The strings' UTF-16 code units, one after another. */
  readonly text: Uint16Array;
  /** Where string `i` starts in `text`; `offsets[size]` is the text's length. */
  readonly offsets: Uint32Array;
  /** Position + 1 of the string at each slot (0: empty); a power of two long, never full. */
  readonly slots: Int32Array;

  constructor(text: Uint16Array, offsets: Uint32Array, slots: Int32Array) {
    this.text = text;
    this.offsets = offsets;
    this.slots = slots;
  }

  /** The table of `strings`, in their order. */
  static of(strings: readonly string[]): StringTable {
    const offsets = new Uint32Array(strings.length + 1);
    for (let index = 0; index < strings.length; index += 1) offsets[index + 1] = offsets[index]! + strings[index]!.length;
    const text = new Uint16Array(offsets[strings.length]!);
    strings.forEach((string, index) => {
      for (let unit = 0; unit < string.length; unit += 1) text[offsets[index]! + unit] = string.charCodeAt(unit);
    });
    // At most half full: a missing key (most merge lookups) ends its probe within a slot or two.
    let capacity = 2;
    while (capacity < 2 * strings.length) capacity *= 2;
    const table = new StringTable(text, offsets, new Int32Array(capacity));
    strings.forEach((string, index) => (table.slots[table.#slotOf(string)] = index + 1));
    return table;
  }

  get size(): number {
    return this.offsets.length - 1;
  }

  /** The position of `key` (the last, when it is listed more than once), or -1. */
  indexOf(key: string): number {
    return this.slots[this.#slotOf(key)]! - 1;
  }

  /** The string at `index`. */
  at(index: number): string {
    return String.fromCharCode.apply(null, this.text.subarray(this.offsets[index], this.offsets[index + 1]) as unknown as number[]);
  }

  /** All the strings, in order: one decoding of the text, then a slice each. */
  strings(): string[] {
    const all = Buffer.from(this.text.buffer, this.text.byteOffset, this.text.byteLength).toString('utf16le');
    const strings = new Array<string>(this.size);
    for (let index = 0; index < strings.length; index += 1) strings[index] = all.slice(this.offsets[index], this.offsets[index + 1]);
    return strings;
  }

  /** The length (UTF-16 units) of the string at `index`. */
  lengthAt(index: number): number {
    return this.offsets[index + 1]! - this.offsets[index]!;
  }

  /** The slot holding `key`, else the empty slot where it would go. */
  #slotOf(key: string): number {
    const { slots, offsets, text } = this;
    const mask = slots.length - 1;
    for (let slot = hash(key) & mask; ; slot = (slot + 1) & mask) {
      const entry = slots[slot]!;
      if (entry === 0) return slot;
      const start = offsets[entry - 1]!;
      if (offsets[entry]! - start !== key.length) continue;
      let unit = 0;
      while (unit < key.length && text[start + unit] === key.charCodeAt(unit)) unit += 1;
      if (unit === key.length) return slot;
    }
  }
}

/** FNV-1a over UTF-16 code units, its high bits folded into the low ones the slot mask keeps. Part of the file format: changing it changes the tables' version. */
function hash(key: string): number {
  let value = 0x811c9dc5;
  for (let unit = 0; unit < key.length; unit += 1) value = Math.imul(value ^ key.charCodeAt(unit), 0x01000193);
  return (value ^ (value >>> 16)) >>> 0;
}

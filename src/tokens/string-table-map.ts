import type { StringTable } from './string-table.js';

/**
 * The part of a `Map<string, number>` that @huggingface/tokenizers' BPE model calls on its token → id
 * map and merge ranks (`get`, `has`; `set` for added tokens), answered from a `StringTable`: the value
 * of the table's `index`th string is `values[index]`, or `index` itself without `values` (a merge's
 * rank). Keys set afterwards take precedence, as they would in the `Map`. With `remember`, keys found
 * are kept in a `Map` too, so the strings a tokenizer meets again and again (its output tokens, looked
 * up twice each) cost a `Map` lookup, as before.
 */
export class StringTableMap {
  readonly #table: StringTable;
  readonly #values: Int32Array | undefined;
  readonly #remember: boolean;
  /** Keys set, and with `remember` keys found in the table. */
  readonly #known = new Map<string, number>();

  constructor(table: StringTable, options: { values?: Int32Array; remember?: boolean } = {}) {
    this.#table = table;
    this.#values = options.values;
    this.#remember = options.remember ?? false;
  }

  get(key: string): number | undefined {
    const known = this.#known.get(key);
    if (known !== undefined) return known;
    // The library may ask for a missing unknown token (`get(undefined)`): a Map answers undefined.
    const index = typeof key === 'string' ? this.#table.indexOf(key) : -1;
    if (index < 0) return undefined;
    const value = this.#values === undefined ? index : this.#values[index]!;
    if (this.#remember) this.#known.set(key, value);
    return value;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  set(key: string, value: number): this {
    this.#known.set(key, value);
    return this;
  }
}

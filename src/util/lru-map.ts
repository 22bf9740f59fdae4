/** An entry of the recency list: `newer` points toward the most recent end. */
interface Entry<K, V> {
  key: K;
  value: V;
  older: Entry<K, V> | undefined;
  newer: Entry<K, V> | undefined;
}

/**
 * A Map that keeps at most `capacity` entries, dropping the least recently used: a cache whose
 * memory follows its capacity, not the run's size. Reading an entry makes it the most recent.
 *
 * Recency is a linked list through the entries, not the Map's insertion order: moving an entry by
 * deleting and re-inserting it leaves a hole at the Map's front for every read, and finding the
 * oldest key then walks past all of them. Under eviction that cost 3–4× as much per operation (issue 13).
 */
export class LruMap<K, V> {
  readonly #capacity: number;
  readonly #entries = new Map<K, Entry<K, V>>();
  #oldest: Entry<K, V> | undefined;
  #newest: Entry<K, V> | undefined;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a whole number ≥ 1, got ${capacity}`);
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#touch(entry);
    return entry.value;
  }

  delete(key: K): boolean {
    const entry = this.#entries.get(key);
    if (entry === undefined) return false;
    this.#unlink(entry);
    return this.#entries.delete(key);
  }

  set(key: K, value: V): void {
    const existing = this.#entries.get(key);
    if (existing !== undefined) {
      existing.value = value;
      this.#touch(existing);
      return;
    }
    const entry: Entry<K, V> = { key, value, older: undefined, newer: undefined };
    this.#entries.set(key, entry);
    this.#append(entry);
    if (this.#entries.size > this.#capacity) this.delete(this.#oldest!.key);
  }

  #touch(entry: Entry<K, V>): void {
    if (entry === this.#newest) return;
    this.#unlink(entry);
    this.#append(entry);
  }

  #append(entry: Entry<K, V>): void {
    entry.older = this.#newest;
    entry.newer = undefined;
    if (this.#newest) this.#newest.newer = entry;
    else this.#oldest = entry;
    this.#newest = entry;
  }

  #unlink(entry: Entry<K, V>): void {
    if (entry.older) entry.older.newer = entry.newer;
    else this.#oldest = entry.newer;
    if (entry.newer) entry.newer.older = entry.older;
    else this.#newest = entry.older;
    entry.older = entry.newer = undefined;
  }
}

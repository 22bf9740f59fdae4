/**
 * A Map that keeps at most `capacity` entries, dropping the least recently used: a cache whose
 * memory follows its capacity, not the run's size. Reading an entry makes it the most recent.
 */
export class LruMap<K, V> {
  readonly #capacity: number;
  readonly #entries = new Map<K, V>();

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a whole number ≥ 1, got ${capacity}`);
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    // A Map iterates in insertion order: re-inserting moves the entry to the most recent end.
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#capacity) this.#entries.delete(this.#entries.keys().next().value as K);
  }
}

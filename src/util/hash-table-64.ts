/**
 * A map from 64-bit keys (two 32-bit halves) to non-negative 32-bit values in typed arrays with open
 * addressing: about 24 bytes per entry, where a Map of string keys costs 80 or more.
 */
export class HashTable64 {
  #high = new Uint32Array(1024);
  #low = new Uint32Array(1024);
  #values = new Int32Array(1024).fill(-1);
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** The value for the key, or -1. */
  get(high: number, low: number): number {
    const mask = this.#values.length - 1;
    for (let slot = (low ^ Math.imul(high, 0x9e3779b1)) & mask; ; slot = (slot + 1) & mask) {
      const value = this.#values[slot]!;
      if (value === -1) return -1;
      if (this.#high[slot] === high >>> 0 && this.#low[slot] === low >>> 0) return value;
    }
  }

  set(high: number, low: number, value: number): void {
    if (value < 0) throw new RangeError('values must be non-negative');
    if ((this.#size + 1) * 2 > this.#values.length) this.#grow();
    const mask = this.#values.length - 1;
    for (let slot = (low ^ Math.imul(high, 0x9e3779b1)) & mask; ; slot = (slot + 1) & mask) {
      if (this.#values[slot] === -1) {
        this.#high[slot] = high;
        this.#low[slot] = low;
        this.#values[slot] = value;
        this.#size += 1;
        return;
      }
      if (this.#high[slot] === high >>> 0 && this.#low[slot] === low >>> 0) {
        this.#values[slot] = value;
        return;
      }
    }
  }

  #grow(): void {
    const [high, low, values] = [this.#high, this.#low, this.#values];
    this.#high = new Uint32Array(values.length * 2);
    this.#low = new Uint32Array(values.length * 2);
    this.#values = new Int32Array(values.length * 2).fill(-1);
    this.#size = 0;
    for (let slot = 0; slot < values.length; slot++) if (values[slot] !== -1) this.set(high[slot]!, low[slot]!, values[slot]!);
  }
}

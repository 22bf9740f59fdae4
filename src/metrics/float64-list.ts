/**
 * A growable list of numbers in one Float64Array: 8 bytes a value, where a JavaScript array of
 * numbers costs more and holds the garbage collector up on a million entries. Slots never set read
 * as `fill`: NaN (absent) by default, 0 for sums.
 */
export class Float64List {
  readonly #fill: number;
  #values: Float64Array;
  #length = 0;

  constructor(fill = Number.NaN) {
    this.#fill = fill;
    this.#values = new Float64Array(64).fill(fill);
  }

  get length(): number {
    return this.#length;
  }

  get(index: number): number {
    return index < this.#length ? this.#values[index]! : this.#fill;
  }

  set(index: number, value: number): void {
    if (index >= this.#values.length) this.#grow(index + 1);
    this.#values[index] = value;
    if (index >= this.#length) this.#length = index + 1;
  }

  push(value: number): void {
    this.set(this.#length, value);
  }

  /** Adds `value` to the slot (which starts at `fill`). */
  add(index: number, value: number): void {
    this.set(index, this.get(index) + value);
  }

  /** The values so far, shared (not copied): valid until the next write past the end. */
  view(): Float64Array {
    return this.#values.subarray(0, this.#length);
  }

  #grow(minimum: number): void {
    const grown = new Float64Array(Math.max(minimum, this.#values.length * 2)).fill(this.#fill);
    grown.set(this.#values);
    this.#values = grown;
  }
}

type Storage = Uint8Array | Uint16Array | Uint32Array | Float64Array;

/** The narrow kinds, smallest first; each keeps its largest value to mark a slot never set. */
const NARROW = [Uint8Array, Uint16Array, Uint32Array] as const;
const LARGEST = [0xff, 0xffff, 0xffffffff] as const;

/**
 * A growable list of numbers in the narrowest typed array that holds them exactly: 1 byte a value
 * while every value is an integer from 0 to 254, 2 bytes to 65,534, 4 bytes to 2^32 − 2, and 8 bytes
 * (a Float64Array, any number) from the first value that fits no narrower kind. Most numbers kept per
 * rollout (keys, token counts, 0/1 rewards and flags) are small integers: a list of them costs 1–4
 * bytes a value instead of 8, and reads back the same numbers (issue 13). Slots never set read as
 * `fill`: NaN (absent) by default, 0 for sums; setting `fill` itself never widens the list.
 */
export class NumberList {
  readonly #fill: number;
  #values: Storage;
  /** In a narrow array, the code of a slot holding `fill`; NaN (equal to nothing) in a Float64Array, which holds `fill` itself. */
  #absent: number = LARGEST[0];
  #length = 0;

  constructor(fill = Number.NaN) {
    this.#fill = fill;
    this.#values = new Uint8Array(64).fill(LARGEST[0]);
  }

  get length(): number {
    return this.#length;
  }

  get(index: number): number {
    if (index >= this.#length) return this.#fill;
    const code = this.#values[index]!;
    return code === this.#absent ? this.#fill : code;
  }

  set(index: number, value: number): void {
    let code = value;
    if (!(this.#values instanceof Float64Array)) {
      if (Object.is(value, this.#fill)) code = this.#absent;
      else if (!(value < this.#absent && fitsNarrow(value))) this.#widen(value);
    }
    if (index >= this.#values.length) this.#grow(index + 1);
    this.#values[index] = code;
    if (index >= this.#length) this.#length = index + 1;
  }

  push(value: number): void {
    this.set(this.#length, value);
  }

  /** Adds `value` to the slot (which starts at `fill`). */
  add(index: number, value: number): void {
    this.set(index, this.get(index) + value);
  }

  /** The values so far, as a new array of their own. */
  toFloat64Array(): Float64Array {
    const values = new Float64Array(this.#length);
    for (let i = 0; i < values.length; i++) values[i] = this.get(i);
    return values;
  }

  /** Moves the values into the narrowest kind that also holds `value`. */
  #widen(value: number): void {
    const kind = fitsNarrow(value) ? LARGEST.findIndex((largest) => value < largest) : -1;
    const old = this.#values;
    const oldAbsent = this.#absent;
    this.#values = kind === -1 ? new Float64Array(old.length) : new NARROW[kind]!(old.length);
    this.#absent = kind === -1 ? Number.NaN : LARGEST[kind]!;
    this.#values.fill(this.#emptyCode());
    for (let i = 0; i < this.#length; i++) this.#values[i] = old[i] === oldAbsent ? this.#emptyCode() : old[i]!;
  }

  #grow(minimum: number): void {
    const grown = new (this.#values.constructor as new (length: number) => Storage)(Math.max(minimum, this.#values.length * 2));
    grown.fill(this.#emptyCode());
    grown.set(this.#values);
    this.#values = grown;
  }

  /** What an unset slot holds: the narrow kind's code, or `fill` itself in a Float64Array. */
  #emptyCode(): number {
    return this.#values instanceof Float64Array ? this.#fill : this.#absent;
  }
}

/** An integer that some narrow kind can hold: not negative, not −0, below 2^32 − 1. */
function fitsNarrow(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && value < LARGEST[2] && !Object.is(value, -0);
}

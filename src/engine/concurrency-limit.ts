/**
 * A concurrency that may change while jobs run (`--concurrency auto`): the async schedule runs at most
 * `current` jobs at once. Lowered, it lets the jobs running finish and starts no new ones until fewer
 * run; raised, it starts more at once. Whoever controls it (a controller reading the servers'
 * metrics) calls `set`.
 */
export class ConcurrencyLimit {
  #current: number;
  readonly #onRaise = new Set<() => void>();

  constructor(initial: number) {
    this.#current = checked(initial);
  }

  get current(): number {
    return this.#current;
  }

  /** Moves the limit (a whole number ≥ 1). */
  set(value: number): void {
    const previous = this.#current;
    this.#current = checked(value);
    if (this.#current > previous) for (const listener of this.#onRaise) listener();
  }

  /** Calls `listener` each time the limit rises; returns what stops it. */
  onRaise(listener: () => void): () => void {
    this.#onRaise.add(listener);
    return () => this.#onRaise.delete(listener);
  }
}

function checked(value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`a concurrency limit is a whole number ≥ 1, got ${value}`);
  return value;
}

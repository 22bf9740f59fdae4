/**
 * A concurrency that may change while jobs run (`--concurrency auto`): the async schedule runs at most
 * `current` jobs at once. Lowered, it lets the jobs running finish and starts no new ones until fewer
 * run; raised, it starts more at once. Whoever controls it (a controller reading the servers'
 * metrics) calls `set`.
 */
export class ConcurrencyLimit {
  #current: number;
  #raised = new Pulse();

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
    if (this.#current <= previous) return;
    this.#raised.fire();
  }

  /** Resolves the next time the limit is raised. */
  raised(): Promise<void> {
    return this.#raised.next();
  }
}

/** A promise for the next time something happens, shared by everyone waiting for it. */
export class Pulse {
  #wake!: () => void;
  #next = this.#arm();

  next(): Promise<void> {
    return this.#next;
  }

  fire(): void {
    const wake = this.#wake;
    this.#next = this.#arm();
    wake();
  }

  #arm(): Promise<void> {
    return new Promise<void>((resolve) => (this.#wake = resolve));
  }
}

function checked(value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`a concurrency limit is a whole number ≥ 1, got ${value}`);
  return value;
}

/** Counts per task index: a growable typed array for the dense indices collectors assign, a Map for sparse ones. */
export class TaskCounter {
  static readonly #DENSE_LIMIT = 1 << 26;
  #dense = new Int32Array(1024);
  readonly #sparse = new Map<number, number>();

  get(task: number): number {
    return task < TaskCounter.#DENSE_LIMIT ? (this.#dense[task] ?? 0) : (this.#sparse.get(task) ?? 0);
  }

  /** Adds one and returns the count before it. */
  increment(task: number): number {
    const before = this.get(task);
    if (task < TaskCounter.#DENSE_LIMIT) {
      if (task >= this.#dense.length) {
        const grown = new Int32Array(Math.max(task + 1, this.#dense.length * 2));
        grown.set(this.#dense);
        this.#dense = grown;
      }
      this.#dense[task] = before + 1;
    } else {
      this.#sparse.set(task, before + 1);
    }
    return before;
  }

  /** Every task with a count above zero, in index order, with its count. */
  *entries(): Generator<[number, number]> {
    for (let task = 0; task < this.#dense.length; task++) if (this.#dense[task]! > 0) yield [task, this.#dense[task]!];
    yield* [...this.#sparse.entries()].sort((a, b) => a[0] - b[0]);
  }
}

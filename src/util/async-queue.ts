/**
 * A single-consumer queue that a producer pushes into and a consumer drains with `for await`.
 * `fail` ends iteration with an error after the items already queued.
 */
export class AsyncQueue<T> implements AsyncIterable<T> {
  #items: T[] = [];
  #waiting: ((result: IteratorResult<T>) => void) | undefined;
  #waitingReject: ((error: unknown) => void) | undefined;
  #closed = false;
  #error: { value: unknown } | undefined;

  push(item: T): void {
    if (this.#closed) throw new Error('push() after close()');
    const resolve = this.#takeWaiter();
    if (resolve) resolve({ value: item, done: false });
    else this.#items.push(item);
  }

  close(): void {
    this.#closed = true;
    this.#takeWaiter()?.({ value: undefined, done: true });
  }

  fail(error: unknown): void {
    this.#error = { value: error };
    this.#closed = true;
    const reject = this.#waitingReject;
    this.#takeWaiter();
    reject?.(error);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    while (true) {
      if (this.#items.length > 0) {
        yield this.#items.shift() as T;
        continue;
      }
      if (this.#error) throw this.#error.value;
      if (this.#closed) return;
      const result = await new Promise<IteratorResult<T>>((resolve, reject) => {
        this.#waiting = resolve;
        this.#waitingReject = reject;
      });
      if (result.done) return;
      yield result.value;
    }
  }

  #takeWaiter(): ((result: IteratorResult<T>) => void) | undefined {
    const waiter = this.#waiting;
    this.#waiting = undefined;
    this.#waitingReject = undefined;
    return waiter;
  }
}

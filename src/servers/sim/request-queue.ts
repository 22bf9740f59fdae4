import type { SimRequest } from './sim-request.js';

/**
 * The waiting requests in order: new ones join the back, preempted ones go back to the front (vLLM
 * puts them first so they finish before newer work starts). A ring buffer: taking the front is O(1).
 */
export class RequestQueue {
  #items: (SimRequest | undefined)[] = new Array(16);
  #head = 0;
  #size = 0;

  get length(): number {
    return this.#size;
  }

  peek(): SimRequest | undefined {
    return this.#size === 0 ? undefined : this.#items[this.#head];
  }

  pushBack(request: SimRequest): void {
    this.#grow();
    this.#items[(this.#head + this.#size) % this.#items.length] = request;
    this.#size++;
  }

  pushFront(request: SimRequest): void {
    this.#grow();
    this.#head = (this.#head - 1 + this.#items.length) % this.#items.length;
    this.#items[this.#head] = request;
    this.#size++;
  }

  shift(): SimRequest | undefined {
    if (this.#size === 0) return undefined;
    const request = this.#items[this.#head];
    this.#items[this.#head] = undefined;
    this.#head = (this.#head + 1) % this.#items.length;
    this.#size--;
    return request;
  }

  /** Takes `request` out wherever it is (a client that left); O(n). */
  remove(request: SimRequest): boolean {
    const kept = [...this].filter((item) => item !== request);
    if (kept.length === this.#size) return false;
    this.#reset(kept);
    return true;
  }

  /** Empties the queue, returning what was in it. */
  drain(): SimRequest[] {
    const items = [...this];
    this.#reset([]);
    return items;
  }

  *[Symbol.iterator](): IterableIterator<SimRequest> {
    for (let i = 0; i < this.#size; i++) yield this.#items[(this.#head + i) % this.#items.length]!;
  }

  #grow(): void {
    if (this.#size < this.#items.length) return;
    const items = [...this];
    this.#items = new Array(this.#items.length * 2);
    for (let i = 0; i < items.length; i++) this.#items[i] = items[i];
    this.#head = 0;
  }

  #reset(items: SimRequest[]): void {
    this.#items = new Array(Math.max(16, items.length * 2));
    for (let i = 0; i < items.length; i++) this.#items[i] = items[i];
    this.#head = 0;
    this.#size = items.length;
  }
}

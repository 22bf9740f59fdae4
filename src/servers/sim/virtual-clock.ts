import type { SimClock } from './sim-clock.js';

interface Sleeper {
  time: number;
  /** Which slept first, among equal times. */
  order: number;
  resolve: () => void;
}

/**
 * Simulated time that jumps from one wake-up to the next as soon as the process has nothing else to
 * run (a `setImmediate` after the last promise settled): a run takes as long as the simulator's own
 * work, not the simulated time. Exact for clients in the same process that wait only on the
 * simulator; a client that waits on the network or the disk meanwhile sees time jump past it, so HTTP
 * clients want a `ScaledClock`.
 */
export class VirtualClock implements SimClock {
  #now = 0;
  /** A binary heap on `time`; equal times wake in the order they slept. */
  readonly #sleepers: Sleeper[] = [];
  #order = 0;
  #scheduled = false;

  now(): number {
    return this.#now;
  }

  sleepUntil(time: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (time <= this.#now) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const sleeper: Sleeper = { time, order: this.#order++, resolve };
      const onAbort = () => {
        this.#remove(sleeper);
        reject(signal!.reason);
      };
      sleeper.resolve = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#push(sleeper);
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#advance();
    });
  }

  /** Moves time to the earliest wake-up and wakes every sleeper due then. */
  #advance(): void {
    const first = this.#sleepers[0];
    if (!first) return;
    this.#now = Math.max(this.#now, first.time);
    while (this.#sleepers.length > 0 && this.#sleepers[0]!.time <= this.#now) this.#pop().resolve();
    if (this.#sleepers.length > 0) this.#schedule();
  }

  #before(a: Sleeper, b: Sleeper): boolean {
    return a.time < b.time || (a.time === b.time && a.order < b.order);
  }

  #push(sleeper: Sleeper): void {
    const heap = this.#sleepers;
    heap.push(sleeper);
    for (let i = heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!this.#before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  #pop(): Sleeper {
    const heap = this.#sleepers;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      this.#siftDown(0);
    }
    return top;
  }

  #siftDown(start: number): void {
    const heap = this.#sleepers;
    for (let i = start; ; ) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < heap.length && this.#before(heap[left]!, heap[smallest]!)) smallest = left;
      if (right < heap.length && this.#before(heap[right]!, heap[smallest]!)) smallest = right;
      if (smallest === i) return;
      [heap[i], heap[smallest]] = [heap[smallest]!, heap[i]!];
      i = smallest;
    }
  }

  #remove(sleeper: Sleeper): void {
    const heap = this.#sleepers;
    const at = heap.indexOf(sleeper);
    if (at < 0) return;
    const last = heap.pop()!;
    if (at === heap.length) return;
    heap[at] = last;
    this.#siftDown(at);
    for (let i = at; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!this.#before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }
}

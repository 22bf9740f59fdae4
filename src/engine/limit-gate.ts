import type { ConcurrencyLimit } from './concurrency-limit.js';

/**
 * Admits jobs under a `ConcurrencyLimit`: at most `limit.current` hold a place at once. Those that
 * must wait queue in order and are woken one by one as places free (a job ends, the limit rises), so
 * a thousand idle workers cost nothing while a few run: no herd wakes to find the places taken.
 */
export class LimitGate {
  #held = 0;
  readonly #queue: (() => void)[] = [];
  readonly #limit: ConcurrencyLimit;
  readonly #stopListening: () => void;

  constructor(limit: ConcurrencyLimit) {
    this.#limit = limit;
    this.#stopListening = limit.onRaise(() => this.#wake());
  }

  /** Takes a place: at once while there is one, else in turn; false when `ended` resolves first (then no place is held). */
  async enter(ended: Promise<unknown>): Promise<boolean> {
    if (this.#held < this.#limit.current && this.#queue.length === 0) {
      this.#held += 1;
      return true;
    }
    let turn!: () => void;
    const given = new Promise<true>((resolve) => (turn = () => resolve(true)));
    this.#queue.push(turn);
    const entered = await Promise.race([given, ended.then(() => false)]);
    if (!entered) {
      const at = this.#queue.indexOf(turn);
      // Still queued: leave. Already handed a place in the same instant: give it back.
      if (at >= 0) this.#queue.splice(at, 1);
      else this.leave();
    }
    return entered;
  }

  /** Gives a place back and lets the next in the queue have it. */
  leave(): void {
    this.#held -= 1;
    this.#wake();
  }

  /** Stops following the limit (the run is over). */
  close(): void {
    this.#stopListening();
  }

  /** Hands free places to the queue, first come first served; each place is counted as held when handed. */
  #wake(): void {
    while (this.#queue.length > 0 && this.#held < this.#limit.current) {
      this.#held += 1;
      this.#queue.shift()!();
    }
  }
}

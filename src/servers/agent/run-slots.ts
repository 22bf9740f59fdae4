/** Why a caller got no slot: the queue was full, or its signal fired while it waited. */
export type SlotRefusal = { kind: 'queue-full' } | { kind: 'aborted'; reason: unknown };

/**
 * A semaphore with a bounded FIFO queue: at most `concurrency` holders, at most `maxQueued` waiters.
 * A waiter whose signal fires leaves the queue at once, so a client that hangs up while queued
 * costs nothing more.
 */
export class RunSlots {
  readonly #concurrency: number;
  readonly #maxQueued: number;
  readonly #waiters: Array<() => void> = [];
  #held = 0;

  constructor(concurrency: number, maxQueued: number) {
    this.#concurrency = concurrency;
    this.#maxQueued = maxQueued;
  }

  get held(): number {
    return this.#held;
  }

  get queued(): number {
    return this.#waiters.length;
  }

  /** A release function once a slot is free, or why there is none. */
  async acquire(signal: AbortSignal): Promise<{ release: () => void } | SlotRefusal> {
    if (signal.aborted) return { kind: 'aborted', reason: signal.reason };
    if (this.#held < this.#concurrency) return this.#take();
    if (this.#waiters.length >= this.#maxQueued) return { kind: 'queue-full' };
    return new Promise((resolve) => {
      const onAbort = () => {
        this.#waiters.splice(this.#waiters.indexOf(wake), 1);
        resolve({ kind: 'aborted', reason: signal.reason });
      };
      const wake = () => {
        signal.removeEventListener('abort', onAbort);
        resolve(this.#take());
      };
      this.#waiters.push(wake);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  #take(): { release: () => void } {
    this.#held += 1;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#held -= 1;
        this.#waiters.shift()?.();
      },
    };
  }
}

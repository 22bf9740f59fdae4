// Hand-rolled twin of p-limit (7.3.3) that also drops a waiter who gives up, as p-queue does. Measured
// reason (bench/run-slots-bench.ts; p-limit and p-queue 9.3.5 in a scratch install): after 100 queued
// clients hang up, p-limit still counts 100 waiting until the running rollout ends, each a place a
// new request is refused for (503); here 0. p-queue removes them too, but races a running task against
// the same signal and frees its slot while the rollout still runs. A rollout costs the same within
// noise (30-90 µs each way, a signal each). Guard: test/servers/agent-server.test.ts, "lets a queued
// rollout whose client hangs up leave the queue at once".

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
  /** In arrival order (a Set keeps it): removing a waiter that gave up is O(1), and so is taking the first. */
  readonly #waiters = new Set<() => void>();
  #held = 0;

  constructor(concurrency: number, maxQueued: number) {
    this.#concurrency = concurrency;
    this.#maxQueued = maxQueued;
  }

  get held(): number {
    return this.#held;
  }

  get queued(): number {
    return this.#waiters.size;
  }

  /** A release function once a slot is free, or why there is none. */
  async acquire(signal: AbortSignal): Promise<{ release: () => void } | SlotRefusal> {
    if (signal.aborted) return { kind: 'aborted', reason: signal.reason };
    if (this.#held < this.#concurrency) return this.#take();
    if (this.#waiters.size >= this.#maxQueued) return { kind: 'queue-full' };
    return new Promise((resolve) => {
      const onAbort = () => {
        this.#waiters.delete(wake);
        resolve({ kind: 'aborted', reason: signal.reason });
      };
      const wake = () => {
        signal.removeEventListener('abort', onAbort);
        resolve(this.#take());
      };
      this.#waiters.add(wake);
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
        const [next] = this.#waiters;
        if (next === undefined) return;
        this.#waiters.delete(next);
        next();
      },
    };
  }
}

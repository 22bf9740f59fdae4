import { startTimeout, stopTimeout, type TimeoutWatcher } from './shared-timeouts.js';
import { type AbortWatcher, unwatchAbort, WatchedAbortController, watchAbort } from './subscribe-abort.js';

export interface DeadlineSignal {
  signal: AbortSignal;
  /** Aborts this signal only (the outer one is untouched). */
  abort(reason: unknown): void;
  /** Clears the timer and lets go of the outer signal; call when the guarded work ends. */
  dispose(): void;
}

/**
 * A signal that aborts when `outer` does (with its reason) or when `timeoutMs` passes, with a
 * `TimeoutError` reason. The timeout is held here (`startTimeout`) rather than through
 * `AbortSignal.timeout`, which Node 20's `AbortSignal.any` references weakly: a collected timeout
 * signal never fires. Every episode and request in flight watches the one run signal, so `outer` is
 * watched through `watchAbort` (one listener on it, whatever the concurrency).
 */
export function deadlineSignal(outer: AbortSignal | undefined, timeoutMs: number | undefined): DeadlineSignal {
  return new Deadline(outer, timeoutMs);
}

/**
 * One object, the controller of its signal and its own watcher of `outer`: every episode in flight
 * holds one, and closures or an object more would be more memory (issue 26). Its signal tells
 * `watchAbort`'s watchers without a listener (`WatchedAbortController`).
 */
class Deadline extends WatchedAbortController implements DeadlineSignal, AbortWatcher, TimeoutWatcher {
  readonly #outer: AbortSignal | undefined;
  readonly #timeoutMs: number | undefined;

  constructor(outer: AbortSignal | undefined, timeoutMs: number | undefined) {
    super();
    if (outer?.aborted) this.abort(outer.reason);
    else if (outer) {
      this.#outer = outer;
      watchAbort(outer, this);
    }
    if (timeoutMs !== undefined) {
      this.#timeoutMs = timeoutMs;
      startTimeout(this, timeoutMs);
    }
  }

  onTimeout(): void {
    this.abort(new DOMException(`deadline of ${this.#timeoutMs} ms passed`, 'TimeoutError'));
  }

  onAbort(reason: unknown): void {
    this.abort(reason);
  }

  dispose(): void {
    if (this.#timeoutMs !== undefined) stopTimeout(this, this.#timeoutMs);
    if (this.#outer) unwatchAbort(this.#outer, this);
  }
}

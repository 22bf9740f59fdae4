/** Called with the signal's reason when it aborts. */
export type AbortCallback = (reason: unknown) => void;

/** An object told when a signal aborts (`watchAbort`): one that already exists needs no closure per subscription. */
export interface AbortWatcher {
  onAbort(reason: unknown): void;
}

/**
 * A signal's one `abort` listener (an `EventListener` object, so no closure; none on the signal of a
 * `WatchedAbortController`, which calls it itself) and the watchers it tells:
 * one held alone, as most signals have at a time (an episode's, by its request in flight), and a Set
 * only from the second on. Every episode in flight keeps one of these (issue 26).
 */
class FanOut {
  watchers: AbortWatcher | Set<AbortWatcher>;
  readonly #signal: AbortSignal;

  constructor(signal: AbortSignal, first: AbortWatcher) {
    this.#signal = signal;
    this.watchers = first;
  }

  add(watcher: AbortWatcher): void {
    if (this.watchers instanceof Set) this.watchers.add(watcher);
    else this.watchers = new Set([this.watchers, watcher]);
  }

  /** Whether `watcher` was there; `empty` then says whether it was the last. */
  delete(watcher: AbortWatcher): { found: boolean; empty: boolean } {
    if (!(this.watchers instanceof Set)) return this.watchers === watcher ? { found: true, empty: true } : { found: false, empty: false };
    return { found: this.watchers.delete(watcher), empty: this.watchers.size === 0 };
  }

  has(watcher: AbortWatcher): boolean {
    return this.watchers instanceof Set ? this.watchers.has(watcher) : this.watchers === watcher;
  }

  handleEvent(): void {
    // As EventTarget does: a watcher removed by an earlier one is not told, and one that throws does
    // not keep the others from being told (its error is reported as uncaught). The fan-out stays
    // findable until all are told, so `unwatchAbort` reaches it meanwhile.
    const all = this.watchers instanceof Set ? [...this.watchers] : [this.watchers];
    for (const watcher of all) {
      if (!this.has(watcher)) continue;
      try {
        watcher.onAbort(this.#signal.reason);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
    if (fanOuts.get(this.#signal) === this) fanOuts.delete(this.#signal);
  }
}

const fanOuts = new WeakMap<AbortSignal, FanOut>();
/** Signals of `WatchedAbortController`s: their watchers are told by the controller, not by a listener. */
const watched = new WeakSet<AbortSignal>();

/**
 * An AbortController that tells its signal's watchers (`watchAbort`) itself when it aborts, so
 * watching its signal adds no listener to it: Node's `addEventListener` and `removeEventListener`
 * cost about a microsecond each, and every request and environment step of an episode watched the
 * episode's signal (4% of a collect's CPU at fleet scale). Listeners others add are called as ever,
 * by the signal, before the watchers.
 */
export class WatchedAbortController {
  readonly #controller = new AbortController();

  constructor() {
    watched.add(this.#controller.signal);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  abort(reason?: unknown): void {
    const { signal } = this.#controller;
    if (signal.aborted) return;
    this.#controller.abort(reason);
    fanOuts.get(signal)?.handleEvent();
  }
}

/**
 * Tells `watcher` once when `signal` aborts (not if it already has: check `aborted` first), unless
 * `unwatchAbort` removed it before. However many watch, the signal holds one listener: Node's
 * `addEventListener` and `removeEventListener` walk every listener already there, so one per episode
 * and one per request on a shared run signal cost O(concurrency) each (388 ms of a run at concurrency
 * 1,024). The listener goes when its last watcher does. A watcher watches a signal at most once.
 */
export function watchAbort(signal: AbortSignal, watcher: AbortWatcher): void {
  const fanOut = fanOuts.get(signal);
  if (fanOut) {
    fanOut.add(watcher);
    return;
  }
  const made = new FanOut(signal, watcher);
  fanOuts.set(signal, made);
  if (!watched.has(signal)) signal.addEventListener('abort', made, { once: true });
}

/** Stops telling `watcher` about `signal` (nothing if it was not watching, or was told already). */
export function unwatchAbort(signal: AbortSignal, watcher: AbortWatcher): void {
  const fanOut = fanOuts.get(signal);
  if (!fanOut) return;
  const { found, empty } = fanOut.delete(watcher);
  if (!found || !empty) return;
  fanOuts.delete(signal);
  if (!watched.has(signal)) signal.removeEventListener('abort', fanOut);
}

/** `watchAbort` for a callback: calls it once when `signal` aborts, unless the returned function unsubscribed it before. */
export function subscribeAbort(signal: AbortSignal, callback: AbortCallback): () => void {
  const watcher: AbortWatcher = { onAbort: callback };
  watchAbort(signal, watcher);
  return () => unwatchAbort(signal, watcher);
}

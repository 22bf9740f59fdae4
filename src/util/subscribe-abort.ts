/** Called with the signal's reason when it aborts. */
export type AbortCallback = (reason: unknown) => void;

/** An object told when a signal aborts (`watchAbort`): one that already exists needs no closure per subscription. */
export interface AbortWatcher {
  onAbort(reason: unknown): void;
}

/**
 * A signal's one `abort` listener (an `EventListener` object, so no closure) and the watchers it tells:
 * one held alone, as most signals have at a time (an episode's, by its request in flight), and a Set
 * only from the second on. Every episode in flight keeps one of these (issue 26).
 */
class FanOut {
  /** Undefined only in an owned fan-out (`WatchedAbortController`'s) while none watch. */
  watchers: AbortWatcher | Set<AbortWatcher> | undefined;
  readonly #signal: AbortSignal;
  /** A `WatchedAbortController`'s, which tells it itself: it stays while none watch, and has no listener to remove. */
  readonly owned: boolean;

  constructor(signal: AbortSignal, first: AbortWatcher | undefined, owned = false) {
    this.#signal = signal;
    this.watchers = first;
    this.owned = owned;
  }

  add(watcher: AbortWatcher): void {
    if (this.watchers instanceof Set) this.watchers.add(watcher);
    else this.watchers = this.watchers === undefined ? watcher : new Set([this.watchers, watcher]);
  }

  /** Whether `watcher` was there; `empty` then says whether it was the last. */
  delete(watcher: AbortWatcher): { found: boolean; empty: boolean } {
    if (!(this.watchers instanceof Set)) {
      if (this.watchers !== watcher) return { found: false, empty: false };
      this.watchers = undefined;
      return { found: true, empty: true };
    }
    return { found: this.watchers.delete(watcher), empty: this.watchers.size === 0 };
  }

  has(watcher: AbortWatcher): boolean {
    return this.watchers instanceof Set ? this.watchers.has(watcher) : this.watchers === watcher;
  }

  handleEvent(): void {
    // As EventTarget does: a watcher removed by an earlier one is not told, and one that throws does
    // not keep the others from being told (its error is reported as uncaught). The fan-out stays
    // findable until all are told, so `unwatchAbort` reaches it meanwhile.
    const all = this.watchers instanceof Set ? [...this.watchers] : this.watchers === undefined ? [] : [this.watchers];
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

/**
 * An AbortController whose signal's watchers (`watchAbort`) are told by `abort` itself, right after
 * the signal's own listeners, with no `abort` listener on the signal: an episode's signal is watched
 * by its request in flight, and a listener costs ~250 bytes (its record, a closure Node makes for an
 * object listener, the event's list), held per episode in flight (issue 26).
 */
export class WatchedAbortController extends AbortController {
  readonly #fanOut: FanOut;

  constructor() {
    super();
    this.#fanOut = new FanOut(this.signal, undefined, true);
    fanOuts.set(this.signal, this.#fanOut);
  }

  override abort(reason?: unknown): void {
    if (this.signal.aborted) return;
    super.abort(reason);
    this.#fanOut.handleEvent();
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
  signal.addEventListener('abort', made, { once: true });
}

/** Stops telling `watcher` about `signal` (nothing if it was not watching, or was told already). */
export function unwatchAbort(signal: AbortSignal, watcher: AbortWatcher): void {
  const fanOut = fanOuts.get(signal);
  if (!fanOut) return;
  const { found, empty } = fanOut.delete(watcher);
  if (!found || !empty || fanOut.owned) return;
  fanOuts.delete(signal);
  signal.removeEventListener('abort', fanOut);
}

/** `watchAbort` for a callback: calls it once when `signal` aborts, unless the returned function unsubscribed it before. */
export function subscribeAbort(signal: AbortSignal, callback: AbortCallback): () => void {
  const watcher: AbortWatcher = { onAbort: callback };
  watchAbort(signal, watcher);
  return () => unwatchAbort(signal, watcher);
}

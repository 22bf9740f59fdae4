/** Called with the signal's reason when it aborts. */
export type AbortCallback = (reason: unknown) => void;

/** A signal's one `abort` listener and the callbacks it fans out to. */
interface FanOut {
  callbacks: Set<AbortCallback>;
  listener: () => void;
}

const fanOuts = new WeakMap<AbortSignal, FanOut>();

/**
 * Calls `callback` once when `signal` aborts (not if it already has: check `aborted` first), unless
 * the returned function unsubscribed it before. However many subscribe, the signal holds one
 * listener: Node's `addEventListener` and `removeEventListener` walk every listener already there,
 * so one per episode and one per request on a shared run signal cost O(concurrency) each (388 ms of
 * a run at concurrency 1,024). The listener goes when its last subscriber does.
 */
export function subscribeAbort(signal: AbortSignal, callback: AbortCallback): () => void {
  let fanOut = fanOuts.get(signal);
  if (!fanOut) {
    const callbacks = new Set<AbortCallback>();
    const listener = () => {
      fanOuts.delete(signal);
      // As EventTarget does: a callback unsubscribed by an earlier one is not called, and one that
      // throws does not keep the others from running (its error is reported as uncaught).
      for (const subscriber of [...callbacks]) {
        if (!callbacks.has(subscriber)) continue;
        try {
          subscriber(signal.reason);
        } catch (error) {
          queueMicrotask(() => {
            throw error;
          });
        }
      }
      callbacks.clear();
    };
    fanOut = { callbacks, listener };
    fanOuts.set(signal, fanOut);
    signal.addEventListener('abort', listener, { once: true });
  }
  const subscribed = fanOut;
  subscribed.callbacks.add(callback);
  return () => {
    if (!subscribed.callbacks.delete(callback) || subscribed.callbacks.size > 0 || fanOuts.get(signal) !== subscribed) return;
    fanOuts.delete(signal);
    signal.removeEventListener('abort', subscribed.listener);
  };
}

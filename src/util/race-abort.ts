import { subscribeAbort } from './subscribe-abort.js';

/**
 * The promise, or the signal's reason as soon as it aborts (the work itself goes on for others).
 * Many waiters may share one run signal (every episode starting before a lookup answers), so the
 * signal is watched through `subscribeAbort`: one listener on it, however many wait.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const unsubscribe = subscribeAbort(signal, reject);
    promise.then(
      (value) => {
        unsubscribe();
        resolve(value);
      },
      (error: unknown) => {
        unsubscribe();
        reject(error);
      },
    );
  });
}

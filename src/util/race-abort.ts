import { setMaxListeners } from 'node:events';

/** The promise, or the signal's reason as soon as it aborts (the work itself goes on for others). */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  // Many waiters may share one run signal (every episode starting before a lookup answers): that many listeners is expected.
  setMaxListeners(0, signal);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

import { subscribeAbort } from './subscribe-abort.js';

export interface DeadlineSignal {
  signal: AbortSignal;
  /** Aborts this signal only (the outer one is untouched). */
  abort(reason: unknown): void;
  /** Clears the timer and lets go of the outer signal; call when the guarded work ends. */
  dispose(): void;
}

/**
 * A signal that aborts when `outer` does (with its reason) or when `timeoutMs` passes, with a
 * `TimeoutError` reason. The timer is held here rather than through `AbortSignal.timeout`, which
 * Node 20's `AbortSignal.any` references weakly: a collected timeout signal never fires. Every
 * episode and request in flight watches the one run signal, so `outer` is watched through
 * `subscribeAbort` (one listener on it, whatever the concurrency).
 */
export function deadlineSignal(outer: AbortSignal | undefined, timeoutMs: number | undefined): DeadlineSignal {
  const controller = new AbortController();
  let unsubscribe: (() => void) | undefined;
  if (outer?.aborted) controller.abort(outer.reason);
  else if (outer) unsubscribe = subscribeAbort(outer, (reason) => controller.abort(reason));
  const timer =
    timeoutMs === undefined ? undefined : setTimeout(() => controller.abort(new DOMException(`deadline of ${timeoutMs} ms passed`, 'TimeoutError')), timeoutMs);
  return {
    signal: controller.signal,
    abort: (reason) => controller.abort(reason),
    dispose() {
      clearTimeout(timer);
      unsubscribe?.();
    },
  };
}

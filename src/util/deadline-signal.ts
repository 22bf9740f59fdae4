import { setMaxListeners } from 'node:events';

export interface DeadlineSignal {
  signal: AbortSignal;
  /** Aborts this signal only (the outer one is untouched). */
  abort(reason: unknown): void;
  /** Clears the timer; call when the guarded work ends. */
  dispose(): void;
}

/**
 * A signal that aborts when `outer` does or when `timeoutMs` passes, with a `TimeoutError` reason.
 * The timer is held here rather than through `AbortSignal.timeout`, which Node 20's
 * `AbortSignal.any` references weakly: a collected timeout signal never fires.
 */
export function deadlineSignal(outer: AbortSignal | undefined, timeoutMs: number | undefined): DeadlineSignal {
  const controller = new AbortController();
  // One run signal is shared by every request in flight: as many listeners as the concurrency is expected.
  if (outer) setMaxListeners(0, outer);
  const onOuterAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) onOuterAbort();
  else outer?.addEventListener('abort', onOuterAbort, { once: true });
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => controller.abort(new DOMException(`deadline of ${timeoutMs} ms passed`, 'TimeoutError')), timeoutMs);
  return {
    signal: controller.signal,
    abort: (reason) => controller.abort(reason),
    dispose() {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuterAbort);
    },
  };
}

import { setTimeout as sleep } from 'node:timers/promises';

/**
 * `timers/promises`' `setTimeout`, but aborted with the signal's own reason, as undici and fetch
 * reject, not with Node's `AbortError` wrapping it: callers tell a deadline from a hang-up by that reason.
 */
export async function abortableDelay(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, signal && { signal });
  } catch (error) {
    throw signal?.aborted ? signal.reason : error;
  }
}

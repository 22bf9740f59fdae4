export interface RetryOptions {
  /** Attempts per request, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const defaultRetryOptions: RetryOptions = { maxAttempts: 4, baseDelayMs: 250, maxDelayMs: 10_000 };

/** A server may ask for a longer wait than our own backoff would take, but not for more than this. */
const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Delay before retry number `attempt` (1 = the first retry): exponential with "equal jitter" (half fixed,
 * half random, so retries spread without ever being immediate), and never shorter than `Retry-After`.
 */
export function backoffDelay(attempt: number, options: RetryOptions, random: () => number, retryAfterMs?: number): number {
  const exponential = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1));
  const jittered = exponential / 2 + (random() * exponential) / 2;
  return Math.max(jittered, Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
}

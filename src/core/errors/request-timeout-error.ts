import { PolicyError } from './policy-error.js';

/** A request passed its deadline. Retryable (on another replica, if there is one). */
export class RequestTimeoutError extends PolicyError {
  override readonly kind = 'timeout';
  readonly url: string;
  readonly timeoutMs: number;

  constructor(url: string, timeoutMs: number) {
    super(`${url}: no answer within ${timeoutMs} ms`, { isRetryable: true });
    this.url = url;
    this.timeoutMs = timeoutMs;
  }
}

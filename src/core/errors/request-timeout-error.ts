import { HttpCallError } from './http-call-error.js';

/** A request passed its deadline. Retryable (on another replica, if there is one). */
export class RequestTimeoutError extends HttpCallError {
  readonly kind = 'timeout';
  readonly timeoutMs: number;

  constructor(url: string, timeoutMs: number) {
    super(url, `no answer within ${timeoutMs} ms`);
    this.timeoutMs = timeoutMs;
  }
}

import { HttpCallError } from './http-call-error.js';

/** The server answered with an error status. 429 and 5xx are retryable; other 4xx are not. */
export class ServerError extends HttpCallError {
  readonly kind = 'server';
  readonly status: number;
  /** From the `Retry-After` header, when the server sent one. */
  readonly retryAfterMs: number | undefined;

  constructor(url: string, status: number, message: string, retryAfterMs?: number) {
    super(url, `HTTP ${status}: ${message}`, { status });
    this.status = status;
    this.retryAfterMs = retryAfterMs;
  }
}

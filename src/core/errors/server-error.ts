import { redactUrls } from '../../util/redact-urls.js';
import { PolicyError } from './policy-error.js';

/**
 * The server answered with an error status. 429 and 5xx are retryable; other 4xx are not.
 * Credentials in the URL, and in URLs the server's message echoes, are masked.
 */
export class ServerError extends PolicyError {
  override readonly kind = 'server';
  readonly url: string;
  readonly status: number;
  /** From the `Retry-After` header, when the server sent one. */
  readonly retryAfterMs: number | undefined;

  constructor(url: string, status: number, message: string, retryAfterMs?: number) {
    super(redactUrls(`${url}: HTTP ${status}: ${message}`), { isRetryable: status === 429 || status >= 500 });
    this.url = redactUrls(url);
    this.status = status;
    this.retryAfterMs = retryAfterMs;
  }
}

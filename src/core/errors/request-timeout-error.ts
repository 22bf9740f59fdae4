import { redactUrls } from '../../util/redact-urls.js';
import { PolicyError } from './policy-error.js';

/** A request passed its deadline. Retryable (on another replica, if there is one). Credentials in the URL are masked. */
export class RequestTimeoutError extends PolicyError {
  override readonly kind = 'timeout';
  readonly url: string;
  readonly timeoutMs: number;

  constructor(url: string, timeoutMs: number) {
    super(`${redactUrls(url)}: no answer within ${timeoutMs} ms`, { isRetryable: true });
    this.url = redactUrls(url);
    this.timeoutMs = timeoutMs;
  }
}

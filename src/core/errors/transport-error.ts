import { redactUrls } from '../../util/redact-urls.js';
import { PolicyError } from './policy-error.js';

/**
 * The request never got an answer: connection refused or reset, or a body cut short. Retryable.
 * Credentials in the URL are masked: the message reaches failure rows and stderr.
 */
export class TransportError extends PolicyError {
  override readonly kind = 'transport';
  readonly url: string;

  constructor(url: string, message: string, options: { cause?: unknown } = {}) {
    super(redactUrls(`${url}: ${message}`), { ...options, isRetryable: true });
    this.url = redactUrls(url);
  }
}

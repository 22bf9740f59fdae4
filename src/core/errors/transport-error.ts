import { PolicyError } from './policy-error.js';

/** The request never got an answer: connection refused or reset, or a body cut short. Retryable. */
export class TransportError extends PolicyError {
  override readonly kind = 'transport';
  readonly url: string;

  constructor(url: string, message: string, options: { cause?: unknown } = {}) {
    super(`${url}: ${message}`, { ...options, isRetryable: true });
    this.url = url;
  }
}

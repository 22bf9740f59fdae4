import { HttpCallError } from './http-call-error.js';

/** The request never got an answer: connection refused or reset, or a body cut short. Retryable. */
export class TransportError extends HttpCallError {
  readonly kind = 'transport';

  constructor(url: string, message: string, options: { cause?: unknown } = {}) {
    super(url, message, options);
  }
}

import { GymnastError } from './gymnast-error.js';

/** A policy failed to produce a generation (server error, transport failure, malformed result). */
export class PolicyError extends GymnastError {
  readonly kind: string = 'policy';
  /** Whether the same request may succeed if sent again. */
  readonly isRetryable: boolean;

  constructor(message: string, options: { cause?: unknown; isRetryable?: boolean } = {}) {
    super(message, options);
    this.isRetryable = options.isRetryable ?? false;
  }
}

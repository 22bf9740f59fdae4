import { GymnastError } from './gymnast-error.js';

/**
 * A collection ended with more rollouts failed than `--fail-on-error` allows, some of which `--resume`
 * would run again: the run is not finished (collect exits 75, EX_TEMPFAIL).
 */
export class RetryableFailuresError extends GymnastError {
  readonly kind = 'retryable-failures';
  readonly failed: number;
  readonly retryable: number;

  constructor(message: string, counts: { failed: number; retryable: number }) {
    super(message);
    this.failed = counts.failed;
    this.retryable = counts.retryable;
  }
}

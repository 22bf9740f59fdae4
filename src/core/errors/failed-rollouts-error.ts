import { GymnastError } from './gymnast-error.js';

/**
 * A collection ended with more rollouts failed than `--fail-on-error` allows, none of which `--resume`
 * would run again (terminal, or out of attempts): a pipeline should stop here.
 */
export class FailedRolloutsError extends GymnastError {
  readonly kind = 'failed-rollouts';
  readonly failed: number;

  constructor(message: string, failed: number) {
    super(message);
    this.failed = failed;
  }
}

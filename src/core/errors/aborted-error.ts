import { GymnastError } from './gymnast-error.js';

/** Work stopped because its AbortSignal fired (Ctrl-C, a deadline, a shutdown). */
export class AbortedError extends GymnastError {
  readonly kind = 'aborted';
}

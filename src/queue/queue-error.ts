import { GymnastError } from '../core/errors/gymnast-error.js';

/** The queue (Redis) could not be reached, or went away and did not come back: the files hold what finished. */
export class QueueError extends GymnastError {
  readonly kind = 'queue';
}

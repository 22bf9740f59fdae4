import { GymnastError } from '../../core/errors/gymnast-error.js';

/** A simulated replica failed (or was told to): its requests end with this, and new ones are refused until it recovers. */
export class ReplicaDownError extends GymnastError {
  readonly kind = 'replica-down';

  constructor(readonly replica: number) {
    super(`simulated replica ${replica} is down`);
  }
}

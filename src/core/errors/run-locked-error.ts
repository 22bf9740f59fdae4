import { GymnastError } from './gymnast-error.js';

/** Another run holds the output: two writers would duplicate rollouts, so the second one is refused. */
export class RunLockedError extends GymnastError {
  readonly kind = 'run-locked';
  /** The lock file beside the output, named so the user can inspect it (or remove it once its run is gone). */
  readonly lockPath: string;

  constructor(lockPath: string, message: string) {
    super(message);
    this.lockPath = lockPath;
  }
}

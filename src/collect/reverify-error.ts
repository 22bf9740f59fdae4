import { GymnastError } from '../core/errors/gymnast-error.js';

/** A saved row that cannot be re-scored as it stands (a failure row, a row without its transcript): recorded in the sidecar, the rest go on. */
export class ReverifyError extends GymnastError {
  readonly kind = 'reverify';
}

import { GymnastError } from './gymnast-error.js';

/**
 * A fresh run would erase the rows an earlier run left in its output: refused unless the user says
 * which they want, continuing that run or starting afresh.
 */
export class OutputExistsError extends GymnastError {
  readonly kind = 'output-exists';
  /** The files holding rows, with how many lines each holds. */
  readonly files: readonly { path: string; rows: number }[];

  constructor(files: readonly { path: string; rows: number }[], message: string) {
    super(message);
    this.files = files;
  }
}

import { GymnastError } from './gymnast-error.js';

/** An output path that cannot be written (a directory in the way, a missing permission), found before anything is written. */
export class OutputPathError extends GymnastError {
  readonly kind = 'output-path';
  readonly path: string;

  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.path = path;
  }
}

import { GymnastError } from './gymnast-error.js';

/** A file gymnast will not read where it was found: a symbolic link, or not a regular file (a FIFO, a device, a folder). */
export class UnsafeFileError extends GymnastError {
  readonly kind = 'unsafe-file';
  readonly path: string;

  constructor(path: string, message: string) {
    super(message);
    this.path = path;
  }
}

import { GymnastError } from './gymnast-error.js';

/** The OS refused a write to an output file (a full disk, a file size limit, an I/O error); retrying at once would fail again. */
export class WriteFailedError extends GymnastError {
  readonly kind = 'write-failed';
  readonly path: string;
  /** The OS error code: `ENOSPC`, `EFBIG`, `EDQUOT`, `EIO` … */
  readonly code: string;

  constructor(path: string, code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.path = path;
    this.code = code;
  }
}

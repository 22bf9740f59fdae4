import { GymnastError } from '../../core/errors/gymnast-error.js';

/** A request the server refuses to serve as sent: a bad field (400) or a body over the size limit (413). */
export class RequestRejectedError extends GymnastError {
  readonly kind = 'request-rejected';
  readonly status: 400 | 413;

  constructor(status: 400 | 413, message: string) {
    super(message);
    this.status = status;
  }

  /** The error body routes answer with (vLLM's shape). */
  get body(): { object: 'error'; message: string; type: string; code: number } {
    return { object: 'error', message: this.message, type: this.status === 413 ? 'RequestTooLargeError' : 'BadRequestError', code: this.status };
  }
}

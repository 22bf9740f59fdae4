import { GymnastError } from '../../core/errors/gymnast-error.js';
import { openAiErrorBody, type OpenAiErrorBody } from './openai-error-body.js';

export interface RequestRejectedDetail {
  /** The request field at fault (`messages.0.role`, `stream`, ...), when one is. */
  param?: string | undefined;
  /** OpenAI's machine-readable reason, when there is one (`model_not_found`, `unsupported_parameter`, ...). */
  code?: string | undefined;
}

/** A request the server refuses to serve as sent: a bad field (400), an unknown model or resource (404), a body over the size limit (413). */
export class RequestRejectedError extends GymnastError {
  readonly kind = 'request-rejected';
  readonly status: 400 | 404 | 413;
  readonly param: string | undefined;
  readonly code: string | undefined;

  constructor(status: 400 | 404 | 413, message: string, detail: RequestRejectedDetail = {}) {
    super(message);
    this.status = status;
    this.param = detail.param;
    this.code = detail.code ?? (status === 413 ? 'request_too_large' : undefined);
  }

  /** The error body routes answer with: OpenAI's shape, so SDKs show the message. */
  get body(): OpenAiErrorBody {
    return openAiErrorBody(this.message, { type: this.status === 404 ? 'not_found_error' : 'invalid_request_error', param: this.param, code: this.code });
  }
}

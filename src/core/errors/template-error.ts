import { GymnastError } from './gymnast-error.js';

/** The chat template refused the conversation (a Jinja `raise_exception`, such as "roles must alternate"). */
export class TemplateError extends GymnastError {
  readonly kind = 'template';
}

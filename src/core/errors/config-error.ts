import { GymnastError } from './gymnast-error.js';

/** The user asked for something impossible or malformed: fix the input, do not retry. */
export class ConfigError extends GymnastError {
  readonly kind = 'config';
}

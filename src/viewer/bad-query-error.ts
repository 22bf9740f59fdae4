import { ConfigError } from '../core/errors/config-error.js';

/** A query parameter the API cannot use: answered with 400 and its name. */
export class BadQueryError extends ConfigError {
  readonly parameter: string;

  constructor(parameter: string, message: string) {
    super(`bad query parameter ${parameter}: ${message}`);
    this.parameter = parameter;
  }
}

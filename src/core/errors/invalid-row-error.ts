import { GymnastError } from './gymnast-error.js';

/** A row of a result, failure or materialized file that does not match its schema: where, which field, what. */
export class InvalidRowError extends GymnastError {
  readonly kind = 'invalid-row';
  readonly where: string;
  readonly field: string;
  /** What is wrong, without the where and the field (for replies that carry those apart). */
  readonly reason: string;

  constructor(where: string, field: string, message: string) {
    super(`${where}: ${field ? `${field}: ` : ''}${message}`);
    this.where = where;
    this.field = field;
    this.reason = message;
  }
}

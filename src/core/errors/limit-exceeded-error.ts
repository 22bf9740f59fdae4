import { GymnastError } from './gymnast-error.js';

/**
 * A configured limit was crossed: which one (`type`), what was measured and the limit, so messages and
 * records agree (inspect_ai's `LimitExceededError(type, value, limit)`). Not retryable: the same
 * request would cross it again.
 */
export class LimitExceededError extends GymnastError {
  readonly kind = 'limit-exceeded';
  readonly type: string;
  readonly value: number;
  readonly limit: number;

  constructor(type: string, value: number, limit: number, message?: string) {
    super(message ?? `${type} is ${value}, over the limit of ${limit}`);
    this.type = type;
    this.value = value;
    this.limit = limit;
  }
}

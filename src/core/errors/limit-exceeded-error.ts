import { GymnastError } from './gymnast-error.js';

/** A configured limit was crossed; carries what was measured and the limit, so messages and records agree. */
export class LimitExceededError extends GymnastError {
  readonly kind = 'limit-exceeded';
  readonly limit: string;
  readonly value: number;
  readonly maximum: number;

  constructor(limit: string, value: number, maximum: number, message?: string) {
    super(message ?? `${limit} is ${value}, over the limit of ${maximum}`);
    this.limit = limit;
    this.value = value;
    this.maximum = maximum;
  }
}

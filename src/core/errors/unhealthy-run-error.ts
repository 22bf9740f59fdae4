import { GymnastError } from './gymnast-error.js';

/** `gymnast health` found more unhealthy rollouts than `--max-unhealthy` allows: a pipeline should stop here. */
export class UnhealthyRunError extends GymnastError {
  readonly kind = 'unhealthy';
  readonly unhealthy: number;
  readonly rollouts: number;

  constructor(message: string, counts: { unhealthy: number; rollouts: number }) {
    super(message);
    this.unhealthy = counts.unhealthy;
    this.rollouts = counts.rollouts;
  }
}

import { GymnastError } from './gymnast-error.js';

/** An environment failed to reset or step, or returned something that breaks its contract. */
export class EnvironmentError extends GymnastError {
  readonly kind: string = 'environment';
  /** The environment's name, so a failure record says which one broke. */
  readonly environment: string;

  constructor(environment: string, message: string, options?: { cause?: unknown }) {
    super(`${environment}: ${message}`, options);
    this.environment = environment;
  }
}

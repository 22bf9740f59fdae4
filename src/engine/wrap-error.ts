import { EnvironmentError } from '../core/errors/environment-error.js';
import { GymnastError } from '../core/errors/gymnast-error.js';
import { PolicyError } from '../core/errors/policy-error.js';

/**
 * Runs a call to the outside world and gives any plain error thrown by it a type, so the loop's one
 * catch can classify every failure. Aborts pass through untouched: the signal says what happened.
 */
export async function typedErrors<T>(
  signal: AbortSignal,
  toError: (error: unknown) => GymnastError,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (signal.aborted || GymnastError.isInstance(error)) throw error;
    throw toError(error);
  }
}

export const asPolicyError = (policy: string) => (error: unknown) =>
  new PolicyError(`policy ${policy} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });

export const asEnvironmentError = (environment: string, phase: 'reset' | 'step') => (error: unknown) =>
  new EnvironmentError(environment, `${phase} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });

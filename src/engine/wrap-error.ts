import { EnvironmentError } from '../core/errors/environment-error.js';
import { environmentErrorKinds, hasKind, httpCallErrorKinds, policyErrorKinds } from '../core/errors/has-kind.js';
import type { GymnastError } from '../core/errors/gymnast-error.js';
import { PolicyError } from '../core/errors/policy-error.js';

/**
 * Runs a call to the outside world and gives whatever it throws the type of that call's failure, so
 * the loop's one catch can classify every failure. Aborts pass through untouched: the signal says what happened.
 */
export async function typedErrors<T>(signal: AbortSignal, toError: (error: unknown) => GymnastError, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw typedError(signal, toError, error);
  }
}

/** What `typedErrors` throws for `error`: for a caller that awaits in its own `try` (one async frame fewer held while it waits). */
export function typedError(signal: AbortSignal, toError: (error: unknown) => GymnastError, error: unknown): unknown {
  return signal.aborted || hasKind(error, 'aborted') ? error : toError(error);
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export const asPolicyError = (policy: string) => (error: unknown) =>
  hasKind(error, ...policyErrorKinds, ...httpCallErrorKinds, 'token-alignment')
    ? error
    : new PolicyError(`policy ${policy} failed: ${messageOf(error)}`, { cause: error });

export const asEnvironmentError = (environment: string, phase: 'reset' | 'step') => (error: unknown) =>
  hasKind(error, ...environmentErrorKinds) ? error : new EnvironmentError(environment, `${phase} failed: ${messageOf(error)}`, { cause: error });

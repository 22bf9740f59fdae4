import { GymnastError } from './gymnast-error.js';

/**
 * Whether sending the same request again may succeed: a gymnast error that says so (an HTTP call
 * that got no answer or a 429/5xx, a reply the sampler could not have produced). Read from the error,
 * not from a list of kinds, so a new retryable error needs no change here; like `hasKind`, it holds
 * across two copies of the package in one process.
 */
export function isRetryable(error: unknown): error is GymnastError & { readonly isRetryable: true } {
  return GymnastError.isInstance(error) && (error as { isRetryable?: unknown }).isRetryable === true;
}

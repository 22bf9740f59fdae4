import { GymnastError } from './gymnast-error.js';

/**
 * Model-written code cannot be run in a sandbox here: bubblewrap is missing, or it is installed but
 * cannot create its namespaces. gymnast never falls back to running the code bare on its own: the
 * message names the fix, and running unsandboxed is a separate opt-in (`--unsandboxed`).
 */
export class SandboxUnavailableError extends GymnastError {
  readonly kind = 'sandbox-unavailable';
}

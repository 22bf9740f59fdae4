import { GymnastError } from './gymnast-error.js';

/** Rendering a turn would change tokens already on the ledger (the sequence would no longer be what was sampled). */
export class TokenAlignmentError extends GymnastError {
  readonly kind = 'token-alignment';
}

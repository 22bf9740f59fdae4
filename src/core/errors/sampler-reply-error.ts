import { PolicyError } from './policy-error.js';

/**
 * The policy server is at fault, not the input: it sent a reply its sampler could not have produced
 * (a token id outside the vocabulary, a logprob that is not a finite number ≤ 0, ids and logprobs of
 * different counts, ids that do not decode to the text), or refused a prompt that holds its own
 * earlier replies. Never recorded as a reward, and never terminal: a rollout that met it is retried
 * on resume. A bad reply is also sent again within the request's attempts (`isRetryable`); a refused
 * prompt is not, since the same prompt would be refused the same way.
 */
export class SamplerReplyError extends PolicyError {
  override readonly kind = 'sampler-reply';
  /** The status of a refused prompt; absent for a bad reply (it came with 200). */
  readonly status: number | undefined;

  constructor(message: string, options: { isRetryable: boolean; status?: number; cause?: unknown }) {
    super(message, options);
    this.status = options.status;
  }
}

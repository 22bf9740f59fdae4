import type { PolicyResult } from '../core/policy-result.js';
import type { TokenDrift } from '../tokens/conversation-renderer.js';

/** A turn the policy generated, as the loop carries it to the environment and the record. */
export interface Generation {
  type: 'generated';
  result: PolicyResult;
  /** Sequence length the policy was prompted with. */
  promptTokens: number;
  /** `max_tokens` was lowered to fit `max_seq_len`, and the generation used all of it. */
  filledSequence: boolean;
  /** The server sampled from a different prompt from the ledger's (it rendered its own, or changed the ids sent). */
  drift?: TokenDrift;
  /** Set when the server rendered the prompt: `true` when it did not return its ids, so the turn could not be checked for drift. */
  driftUnchecked?: boolean;
  /** When the policy was asked, in ms from the episode's start. */
  startMs: number;
  ms: number;
}

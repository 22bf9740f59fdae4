import type { z } from 'zod';
import type { PolicyRequest } from './policy.js';
import type { PolicyResultInput } from '../core/policy-result.js';
import type { SampledReply } from './sampled-reply.js';

/**
 * What makes one inference API: the path, how a request is written, and how the answer is read.
 * Each backend folder has the same files: wire types, request conversion, finish-reason mapping,
 * usage conversion, and this recipe. Transport, routing and retries are shared (`RemotePolicy`).
 */
export interface BackendRecipe<Wire> {
  readonly name: string;
  readonly path: string;
  /** Whether results carry the sampler's token ids (false: evaluation only, no training tokens). */
  readonly returnsTokenIds: boolean;
  toWire(request: PolicyRequest, model: string): unknown;
  readonly responseSchema: z.ZodType<Wire>;
  /**
   * The usual answer confirmed by hand and returned as `responseSchema` reads it, or undefined for
   * anything else, which the schema then reads (and names what is wrong): zod's generic walk of every
   * answer cost more than the hand check. It must accept exactly what the schema accepts.
   */
  readonly readResponse?: (value: unknown) => Wire | undefined;
  /**
   * What the sampler produced and where the answer has it; undefined when the answer has no ids
   * (text-only APIs, or a server too old to return them: `fromWire` says so). Checked before
   * `fromWire` reads it, so `fromWire` may take the ids and logprobs as checked.
   */
  sampledReply(wire: Wire): SampledReply | undefined;
  /** `request` is the one the episode made: `toWire` got it fitted to the model's context (`max_tokens` lowered to the room left). */
  fromWire(wire: Wire, request: PolicyRequest): PolicyResultInput;
}

import { z } from 'zod';
import type { ChatTool } from '../core/chat-tool.js';
import { FinishReason } from '../core/finish-reason.js';
import type { Message } from '../core/message.js';
import type { SamplingParams } from '../core/sampling-params.js';
import { Usage } from '../core/usage.js';

/** One generation request: the exact prompt tokens plus the messages they render, for backends that take messages. */
export interface PolicyRequest {
  /** Identifies the episode; backends route its turns to one replica (prefix cache) and label requests with it. */
  session_id: string;
  /** The full sequence so far, ending with the generation prompt. */
  prompt_token_ids: readonly number[];
  messages: readonly Message[];
  /** Tools offered to the model, for backends that render the prompt on the server. */
  tools?: readonly ChatTool[];
  /** `max_tokens` already fits the remaining `max_seq_len` budget; `seed` is this turn's derived seed. */
  sampling: SamplingParams;
  /** Generation ends after any of these strings; the text and ids include the stop string. */
  stop_strings: readonly string[];
  /** Generation ends after any of these ids; the id is included in the result. */
  stop_token_ids: readonly number[];
}

/** What a policy sampled. `token_ids` and `logprobs` are the sampler's own, never re-derived from text. */
export const PolicyResult = z
  .object({
    token_ids: z.array(z.number().int().nonnegative()),
    /** The sampler's logprob of each sampled token (which distribution: see the backend's docs and the record's `sampling`). */
    logprobs: z.array(z.number()),
    text: z.string(),
    finish_reason: FinishReason,
    usage: Usage,
    /**
     * `sampler`: the ids and logprobs are the sampler's own. `none`: the backend returns text only
     * (hosted APIs); ids and logprobs are empty, and the rollout carries no training tokens.
     */
    token_source: z.enum(['sampler', 'none']).default('sampler'),
    /**
     * Which distribution the logprobs come from, when the backend knows: `raw` (the model's, before
     * temperature and top-k/top-p) or `processed` (the one sampled from). Recorded on every turn.
     */
    logprobs_mode: z.enum(['raw', 'processed']).optional(),
    /** The prompt ids the server says it sampled from, wherever its reply has them: checked against the ledger. */
    prompt_token_ids: z.array(z.number().int().nonnegative()).optional(),
    /**
     * Where the sampled prompt came from. `ledger`: the request's `prompt_token_ids`, sent as ids (a
     * server that echoes them is still checked). `server`: the server rendered `messages` with its own
     * template, so the turn is checked only when the reply carries `prompt_token_ids`, and is recorded as
     * `drift_unchecked` when it does not.
     */
    prompt_source: z.enum(['ledger', 'server']).default('ledger'),
  })
  .refine((result) => result.token_ids.length === result.logprobs.length, {
    message: 'token_ids and logprobs must have the same length',
    path: ['logprobs'],
  })
  .refine((result) => result.token_source === 'sampler' || result.token_ids.length === 0, {
    message: 'a text-only result carries no token ids',
    path: ['token_ids'],
  });
export type PolicyResult = z.infer<typeof PolicyResult>;
export type PolicyResultInput = z.input<typeof PolicyResult>;

/** Anything that samples tokens: a vLLM/SGLang server, the embedded model, a scripted test double. */
export interface Policy {
  readonly name: string;
  /** Rejects with a `PolicyError` (or the signal's reason) instead of returning a partial result. */
  generate(request: PolicyRequest, signal: AbortSignal): Promise<PolicyResultInput>;
  /** The episode of `sessionId` is over: what the policy kept for it (a replica pin) can go. */
  endSession?(sessionId: string): void;
  /** Releases what the policy holds (connections, timers, decoding state). Call it once no more generations are wanted. */
  close(): Promise<void>;
}

/** One token as the sampler picked it, handed out before the generation ends. */
export interface StreamedToken {
  token_id: number;
  /** The sampler's logprob of the token (which distribution: see the backend's docs). */
  logprob: number;
}

/** A policy that hands out each token as it samples it (the embedded model), so a server can stream it. */
export interface StreamingPolicy extends Policy {
  /**
   * Yields each token as soon as it is sampled and returns the whole result, as `generate` resolves it.
   * A consumer that stops iterating ends the generation, as aborting `signal` does.
   */
  stream(request: PolicyRequest, signal: AbortSignal): AsyncGenerator<StreamedToken, PolicyResultInput, undefined>;
}

import { z } from 'zod';
import { FinishReason } from './finish-reason.js';
import { Usage } from './usage.js';

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
    /** Which weights sampled it (0 for the starting ones, +1 per update), when the policy says: recorded on the turn. */
    policy_version: z.number().int().nonnegative().optional(),
    /** The base URL of the replica that answered, its credentials masked: recorded on the turn. Absent when no server did. */
    server: z.string().optional(),
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

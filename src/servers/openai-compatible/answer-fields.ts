import type { Generation } from './generator.js';
import type { RouteContext } from './route.js';

// The fields completions and chat answers share.

/** The tokens the choices generated, together. */
export const completionTokens = (generations: readonly Generation[]) => generations.reduce((sum, generation) => sum + generation.tokenIds.length, 0);

/** The usage block of a completions or chat answer. */
export const usage = (prompt: number, completion: number) => ({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion });

/** A sampled token as a logprobs entry names it: its text, or `token_id:N` when the request asks for ids. */
export const tokenLabel = (context: RouteContext, id: number, asIds: boolean | undefined) => (asIds ? `token_id:${id}` : context.tokenizer.decode([id]));

/**
 * gymnast's own choice field: which weights sampled it (see `POST /update_weights`), on the whole
 * choice and on a streamed choice's last chunk; the backends read it back as the turn's `policy_version`.
 */
export const policyVersion = (generation: Generation) => (generation.policyVersion === undefined ? {} : { policy_version: generation.policyVersion });

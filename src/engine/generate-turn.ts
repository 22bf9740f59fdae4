import { AbortedError } from '../core/errors/aborted-error.js';
import { hasKind } from '../core/errors/has-kind.js';
import { PolicyError } from '../core/errors/policy-error.js';
import { TokenAlignmentError } from '../core/errors/token-alignment-error.js';
import type { Message } from '../core/message.js';
import type { TokenDrift } from '../tokens/conversation-renderer.js';
import type { PolicyRequest } from '../policy/policy.js';
import type { PolicyResult } from '../core/policy-result.js';
import { elapsedMs, systemClock } from '../util/clock.js';
import { mixSeed } from '../util/seeded-random.js';
import type { EpisodeOptions } from './episode-options.js';
import { appendMessages, type EpisodeState } from './episode-state.js';
import type { Generation } from './generation.js';
import { endWith, type EpisodeEnd } from './next-step.js';
import { readPolicyResult } from './read-policy-result.js';
import { asPolicyError, typedError } from './wrap-error.js';
import { extensibleCopy } from '../util/extensible-copy.js';

/**
 * Asks the policy for the next assistant turn and appends it exactly as sampled. Ends the episode as
 * `max-seq-len` (a truncation, not a failure) when the model's context has no room for the turn, or as
 * `prompt-too-long` when that happens before any turn: nothing was sampled, so nothing can be scored.
 */
export function generateTurn(state: EpisodeState, options: EpisodeOptions, turn: number, signal: AbortSignal): Promise<Generation | EpisodeEnd> {
  // Not an async function: an episode waits here on its policy most of its life, and an async frame
  // (a generator, its registers, promise and closures) is more memory per episode in flight than
  // the promise step below (issue 26). The request is built and the result read by functions of their own.
  const request = policyRequest(state, options, turn);
  const started = (options.clock ?? systemClock).now();
  let pending: Promise<unknown>;
  try {
    pending = options.policy.generate(request, signal);
  } catch (error) {
    pending = Promise.reject(error);
  }
  return pending.then(
    (raw) => generatedTurn(state, options, request, raw, started),
    (error: unknown) => refusedTurn(state, options, signal, error),
  );
}

/** What the policy is asked for this turn: the ledger's ids, the messages so far, `max_tokens` cut to the room left in the sequence. */
function policyRequest(state: EpisodeState, options: EpisodeOptions, turn: number): PolicyRequest {
  const maxTokens = Math.min(state.sampling.max_tokens, options.maxSeqLen - state.ledger.length);
  return {
    session_id: state.sessionId,
    prompt_token_ids: state.ledger.tokenIds(),
    // Shared, not copied: the log is never changed in place (see EpisodeState.messages).
    messages: state.messages,
    ...(state.task.tools ? { tools: state.task.tools } : {}),
    sampling: extensibleCopy(state.sampling, { max_tokens: maxTokens, seed: turnSeed(state, turn) }),
    stop_strings: state.stopStrings,
    stop_token_ids: options.stopTokenIds ?? options.renderer.tokenizer.stopTokenIds,
  };
}

/** A policy's failure, typed: no room left in the model's context ends the episode, anything else is thrown. */
function refusedTurn(state: EpisodeState, options: EpisodeOptions, signal: AbortSignal, error: unknown): EpisodeEnd {
  const typed = typedError(signal, asPolicyError(options.policy.name), error);
  if (hasKind(typed, 'context-length')) return endWith(state.turns.length === 0 ? 'prompt-too-long' : 'max-seq-len', typed.message);
  throw typed;
}

/** The sampled turn, checked and appended to the conversation. */
function generatedTurn(state: EpisodeState, options: EpisodeOptions, request: PolicyRequest, raw: unknown, started: number): Generation {
  const maxTokens = request.sampling.max_tokens;
  const result = checkResult(options.policy.name, raw, maxTokens);
  const drift = serverPromptDrift(request.prompt_token_ids, result.prompt_token_ids, options);
  const driftUnchecked = result.prompt_source === 'server' ? result.prompt_token_ids === undefined : undefined;
  const ms = elapsedMs(started, (options.clock ?? systemClock).now());
  appendMessages(state, [assistantMessage(result, options)]);
  const filledSequence = result.finish_reason.unified === 'length' && maxTokens < state.sampling.max_tokens;
  return {
    type: 'generated',
    result,
    promptTokens: request.prompt_token_ids.length,
    filledSequence,
    ...(drift ? { drift } : {}),
    ...(driftUnchecked === undefined ? {} : { driftUnchecked }),
    startMs: elapsedMs(state.startedAt, started),
    ms,
  };
}

/** Compares the prompt a server says it sampled from with the ledger; a difference is a drift, handled by the renderer's mode. */
function serverPromptDrift(ledger: readonly number[], server: readonly number[] | undefined, options: EpisodeOptions): TokenDrift | undefined {
  if (server === undefined) return undefined;
  let at = 0;
  while (at < ledger.length && at < server.length && ledger[at] === server[at]) at++;
  if (at === ledger.length && at === server.length) return undefined;
  const { tokenizer } = options.renderer;
  const drift: TokenDrift = {
    source: 'server',
    at,
    ledger: tokenizer.decode(ledger.slice(at, at + 12)),
    template: tokenizer.decode(server.slice(at, at + 12)),
  };
  if (options.renderer.driftMode === 'strict') {
    throw new TokenAlignmentError(
      `the server sampled from a different prompt from the sequence at token ${at}: the sequence has ${JSON.stringify(drift.ledger)}, the server ${JSON.stringify(drift.template)}`,
    );
  }
  return drift;
}

/**
 * The sampled turn as a message. A text-only result (hosted APIs) is tokenized locally so the sequence
 * stays measured, but gets no logprobs: it is never trained on.
 */
function assistantMessage(result: PolicyResult, options: EpisodeOptions): Message {
  if (result.token_source === 'none') return { role: 'assistant', content: result.text, token_ids: options.renderer.tokenizer.encode(result.text) };
  return { role: 'assistant', content: visibleText(result, options), token_ids: result.token_ids, generation_logprobs: result.logprobs };
}

/**
 * The turn's text without the text of a final stop token (`<|im_end|>`), which the chat template adds
 * itself when it renders the turn: keeping it would close the turn twice.
 */
function visibleText(result: PolicyResult, options: EpisodeOptions): string {
  const last = result.token_ids.at(-1);
  if (last === undefined || !(options.stopTokenIds ?? options.renderer.tokenizer.stopTokenIds).includes(last)) return result.text;
  const stopText = options.renderer.tokenizer.decode([last]);
  return result.text.endsWith(stopText) ? result.text.slice(0, -stopText.length) : result.text;
}

/** A distinct, reproducible seed per (task, rollout, turn), so repeats of a task sample differently. */
function turnSeed(state: EpisodeState, turn: number): number | undefined {
  const base = state.sampling.seed;
  return base === undefined ? undefined : mixSeed(base, state.key.task_index, state.key.rollout_index, turn);
}

function checkResult(policy: string, raw: unknown, maxTokens: number): PolicyResult {
  const parsed = readPolicyResult(raw);
  if (!parsed.success) {
    throw new PolicyError(
      `policy ${policy} returned an invalid result: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
    );
  }
  const result = parsed.data;
  if (result.finish_reason.unified === 'error') {
    throw new PolicyError(`policy ${policy} finished with an error (${result.finish_reason.raw ?? 'no detail'})`);
  }
  if (result.finish_reason.unified === 'abort') {
    throw new AbortedError(`policy ${policy} aborted the generation (${result.finish_reason.raw ?? 'no detail'})`);
  }
  if (result.token_ids.length > maxTokens) {
    throw new PolicyError(`policy ${policy} returned ${result.token_ids.length} tokens, more than max_tokens ${maxTokens}`);
  }
  return result;
}

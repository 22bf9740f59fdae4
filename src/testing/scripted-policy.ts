import type { FinishReason } from '../core/finish-reason.js';
import type { Policy, PolicyRequest } from '../policy/policy.js';
import type { PolicyResult } from '../core/policy-result.js';
import type { Tokenizer } from '../tokens/tokenizer.js';
import { abortableDelay } from '../util/abortable-delay.js';

/** One scripted generation. Give `text` or `token_ids` (the other is derived with the tokenizer). */
export interface ScriptedReply {
  text?: string;
  token_ids?: number[];
  /** Defaults to -0.5 per token. */
  logprobs?: number[];
  /** Defaults to `stop`, or `length` when the reply is cut by the request's `max_tokens`. */
  finish_reason?: FinishReason['unified'];
  /** What the server would have said (`content_filter` …); defaults to `finish_reason`. */
  raw_finish_reason?: string;
  /** Reject with this error instead of replying. */
  error?: Error;
  /** Wait this long first (honours the abort signal). */
  delay_ms?: number;
}

/** Chooses a reply; `turn` counts this session's calls, so replies do not depend on scheduling order. */
export type Script = (request: PolicyRequest, turn: number) => ScriptedReply | Promise<ScriptedReply>;

/**
 * A policy that replays scripted token ids and logprobs and records every request it was sent
 * (deep copies, so later turns cannot change what an earlier request looked like).
 */
export class ScriptedPolicy implements Policy {
  readonly name: string;
  readonly requests: PolicyRequest[] = [];
  readonly #script: Script;
  readonly #tokenizer: Tokenizer;
  readonly #turns = new Map<string, number>();
  #closed = false;

  constructor(options: { script: Script | readonly ScriptedReply[]; tokenizer: Tokenizer; name?: string }) {
    const { script } = options;
    this.name = options.name ?? 'scripted';
    this.#tokenizer = options.tokenizer;
    this.#script = typeof script === 'function' ? script : (_request, turn) => script[Math.min(turn, script.length - 1)] ?? {};
  }

  async generate(request: PolicyRequest, signal: AbortSignal): Promise<PolicyResult> {
    this.requests.push(structuredClone(request));
    const turn = this.#turns.get(request.session_id) ?? 0;
    this.#turns.set(request.session_id, turn + 1);
    const reply = await this.#script(request, turn);
    if (reply.delay_ms) await abortableDelay(reply.delay_ms, signal);
    signal.throwIfAborted();
    if (reply.error) throw reply.error;
    return this.#result(reply, request.sampling.max_tokens);
  }

  /** Whether `close` was called, so tests can check that whoever built the policy released it. */
  get closed(): boolean {
    return this.#closed;
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  #result(reply: ScriptedReply, maxTokens: number): PolicyResult {
    const fullIds = reply.token_ids ?? this.#tokenizer.encode(reply.text ?? '');
    const cut = fullIds.length > maxTokens;
    const token_ids = cut ? fullIds.slice(0, maxTokens) : fullIds;
    const logprobs = (reply.logprobs ?? token_ids.map(() => -0.5)).slice(0, token_ids.length);
    const unified = reply.finish_reason ?? (cut ? 'length' : 'stop');
    return {
      token_ids,
      logprobs,
      text: cut || reply.text === undefined ? this.#tokenizer.decode(token_ids) : reply.text,
      finish_reason: { unified, raw: reply.raw_finish_reason ?? unified },
      usage: { prompt_tokens: 0, completion_tokens: token_ids.length },
      token_source: 'sampler',
      prompt_source: 'ledger',
    };
  }
}

import type { ChatTool } from '../core/chat-tool.js';
import type { Message } from '../core/message.js';
import type { PolicyResultInput } from '../core/policy-result.js';
import type { SamplingParams } from '../core/sampling-params.js';

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

/** Anything that samples tokens: a vLLM/SGLang server, the embedded model, a scripted test double. */
export interface Policy {
  readonly name: string;
  /** Rejects with a `PolicyError` (or the signal's reason) instead of returning a partial result. */
  generate(request: PolicyRequest, signal: AbortSignal): Promise<PolicyResultInput>;
  /**
   * The base URLs of the servers it samples from (a served policy's replicas): where `concurrency: 'auto'`
   * reads their `/metrics`. Absent for a policy that samples in the process.
   */
  readonly serverUrls?: readonly string[];
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

import type { ToolCallParser } from '../../environments/tool-call-parser.js';
import type { ChatTemplate } from '../../tokens/chat-template.js';
import type { Tokenizer } from '../../tokens/tokenizer.js';
import type { EventFraming } from '../http-server/send-event-stream.js';
import type { Generator } from './generator.js';
import type { ServedModel } from './served-model.js';

export interface RouteContext extends ServedModel {
  tokenizer: Tokenizer;
  template: ChatTemplate;
  /** Which server to imitate where vLLM and SGLang differ. */
  flavor: 'vllm' | 'sglang';
  generate: Generator;
  /** When the server started (unix seconds): the model's `created`. */
  startedAt: number;
  /** Reads tool calls out of chat replies when the request offers tools (vLLM's `--tool-call-parser`); none returns the text as written. */
  toolCallParser: ToolCallParser | undefined;
}

export interface RouteResult {
  status: number;
  /** The JSON answer; absent for a stream. */
  body?: unknown;
  /**
   * Present when the client asked for `stream: true`: the events to send as server-sent events, each
   * as soon as the generation yields it. Iterating samples; stopping the iteration stops the sampling.
   */
  events?: AsyncIterable<unknown>;
  /** How the events are framed (default: chat's `data:` lines and `[DONE]`). */
  framing?: EventFraming;
}

/** A route answers with a result, or throws `RequestRejectedError` for a request it refuses. */
export type Route = (context: RouteContext, body: unknown, signal: AbortSignal) => RouteResult | Promise<RouteResult>;

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChatTemplate } from '../../tokens/chat-template.js';
import type { Tokenizer } from '../../tokens/tokenizer.js';
import { DEFAULT_MAX_BODY_BYTES, HttpServerCore, sendJson } from '../http-server/http-server-core.js';
import { hasBearerToken, UNAUTHORIZED } from '../http-server/bearer-token.js';
import { readJsonBody } from '../http-server/read-json-body.js';
import { RequestRejectedError } from '../http-server/request-rejected-error.js';
import type { ToolCallParser } from '../../environments/tool-call-parser.js';
import type { Generator } from './generator.js';
import { findRoute } from './find-route.js';
import type { RouteContext, RouteResult } from './route.js';
import { openAiErrorBody } from '../http-server/openai-error-body.js';
import { unixSeconds } from './response-id.js';
import { sendEventStream } from '../http-server/send-event-stream.js';

export interface OpenAiCompatibleServerOptions {
  tokenizer: Tokenizer;
  template: ChatTemplate;
  generate: Generator;
  /** Which server to imitate where vLLM and SGLang differ (where chat puts `prompt_token_ids`). */
  flavor?: 'vllm' | 'sglang';
  /**
   * The served model's name. Given, a request naming another model is a 404 `model_not_found`; left
   * out, the server lists `gymnast-test-model` and answers any name (a stand-in for whatever model its
   * client is configured with), unless `answersAnyModel` says otherwise.
   */
  model?: string;
  answersAnyModel?: boolean;
  /** Where the model was loaded from, listed as `root` on `/v1/models` (vLLM lists the path or hub name it was given); the name when left out. */
  root?: string;
  /** Reads tool calls out of chat replies that were offered tools, as vLLM's `--tool-call-parser` (e.g. `hermesToolCallParser`); none returns the text as written. */
  toolCallParser?: ToolCallParser;
  maxModelLen?: number;
  /** Request bodies over this many bytes are refused with 413 (default `DEFAULT_MAX_BODY_BYTES`). */
  maxBodyBytes?: number;
  /** When set, every request must carry `Authorization: Bearer <apiKey>` (401 otherwise), as `vllm serve --api-key`. */
  apiKey?: string;
  /** Loopback unless told otherwise. */
  host?: string;
  port?: number;
}

/** One request as the server saw it, handed to subclasses before routing. */
export interface IncomingCall {
  path: string;
  body: unknown;
  sessionId: string | undefined;
  /** The `Authorization` header, when the client sent one. */
  authorization?: string;
  /** The status and body sent back (absent when the request was cut off). */
  response?: RouteResult;
}

/**
 * An OpenAI-compatible inference server with vLLM's and SGLang's token fields: `/v1/models`,
 * `/v1/completions` (token prompts, `return_token_ids`), `/v1/chat/completions` (both streamed as
 * server-sent events on `stream: true`), `/v1/responses` (streamed as typed events), `/tokenize`, `/detokenize`,
 * SGLang `/generate`, `/health`. What samples the tokens is pluggable.
 */
export class OpenAiCompatibleServer {
  readonly #core: HttpServerCore;
  readonly #context: RouteContext;
  readonly #maxBodyBytes: number;
  readonly #apiKey: string | undefined;
  /** Aborted on close: releases whatever waits inside a request. */
  protected readonly closing: AbortController;

  constructor(options: OpenAiCompatibleServerOptions) {
    this.#context = {
      tokenizer: options.tokenizer,
      template: options.template,
      generate: options.generate,
      flavor: options.flavor ?? 'vllm',
      model: options.model ?? 'gymnast-test-model',
      answersAnyModel: options.answersAnyModel ?? options.model === undefined,
      startedAt: unixSeconds(),
      toolCallParser: options.toolCallParser,
      maxModelLen: options.maxModelLen ?? 32_768,
      root: options.root,
    };
    this.#maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.#apiKey = options.apiKey;
    this.#core = new HttpServerCore((request, response, signal) => this.#serve(request, response, signal), {
      ...(options.host === undefined ? {} : { host: options.host }),
      ...(options.port === undefined ? {} : { port: options.port }),
    });
    this.closing = this.#core.closing;
  }

  /** Starts listening and returns the base URL. */
  start(): Promise<string> {
    return this.#core.start();
  }

  get url(): string {
    return this.#core.url;
  }

  /** Stops at once: waiting requests are released and open connections destroyed. */
  close(): Promise<void> {
    return this.#core.close();
  }

  /**
   * A subclass may answer (or mistreat) a request itself; returns true when it did. `signal` aborts
   * when the client goes away or the server closes.
   */
  protected async intercept(_call: IncomingCall, _request: IncomingMessage, _response: ServerResponse, _signal: AbortSignal): Promise<boolean> {
    return false;
  }

  /** Sends a route's result (a stream of events when the client asked for one); a subclass may send it differently (e.g. cut short). */
  protected respond(_request: IncomingMessage, response: ServerResponse, result: RouteResult): void | Promise<void> {
    if (result.events) return sendEventStream(response, result.events, result.framing);
    sendJson(response, result.status, result.body);
  }

  async #serve(request: IncomingMessage, response: ServerResponse, signal: AbortSignal): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    // vLLM leaves /health open to load balancers' probes; every other route needs the token.
    if (path !== '/health' && !hasBearerToken(request.headers.authorization, this.#apiKey)) return sendJson(response, UNAUTHORIZED.status, UNAUTHORIZED.body, UNAUTHORIZED.headers);
    const body = request.method === 'POST' ? await readJsonBody(request, this.#maxBodyBytes) : undefined;
    const session = request.headers['x-session-id'];
    const call: IncomingCall = {
      path,
      body,
      sessionId: Array.isArray(session) ? session[0] : session,
      ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}),
    };
    if (await this.intercept(call, request, response, signal)) return;
    const route = findRoute(request.method, path);
    if (!route) return sendJson(response, 404, openAiErrorBody(`no route ${request.method} ${path}`, { type: 'not_found_error' }));
    const result = await routed(() => route(this.#context, body, signal));
    call.response = result;
    await this.respond(request, response, result);
  }
}

/** A route's refusal becomes its result, so a subclass sees and sends it like any other answer. */
async function routed(route: () => RouteResult | Promise<RouteResult>): Promise<RouteResult> {
  try {
    return await route();
  } catch (error) {
    if (error instanceof RequestRejectedError) return { status: error.status, body: error.body };
    throw error;
  }
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_MAX_BODY_BYTES, HttpServerCore } from '../http-server/http-server-core.js';
import { readIncomingCall, type CallAccess } from './incoming-call.js';
import { OpenAiCompatibleApi, type OpenAiCompatibleApiOptions } from './openai-compatible-api.js';
import { sendNoRoute, sendRouteResult } from './send-route-result.js';

export interface OpenAiCompatibleServerOptions extends OpenAiCompatibleApiOptions {
  /** Request bodies over this many bytes are refused with 413 (default `DEFAULT_MAX_BODY_BYTES`). */
  maxBodyBytes?: number;
  /** When set, every request must carry `Authorization: Bearer <apiKey>` (401 otherwise), as `vllm serve --api-key`. */
  apiKey?: string;
  /** Loopback unless told otherwise. */
  host?: string;
  port?: number;
}

/**
 * An OpenAI-compatible inference server with vLLM's and SGLang's token fields: `/v1/models`,
 * `/v1/completions` (token prompts, `return_token_ids`), `/v1/chat/completions` (both streamed as
 * server-sent events on `stream: true`), `/v1/responses` (streamed as typed events), `/tokenize`, `/detokenize`,
 * SGLang `/generate`, `/health`. What samples the tokens is pluggable.
 */
export class OpenAiCompatibleServer {
  readonly #core: HttpServerCore;
  readonly #api: OpenAiCompatibleApi;
  readonly #access: CallAccess;

  constructor(options: OpenAiCompatibleServerOptions) {
    this.#api = new OpenAiCompatibleApi(options);
    this.#access = { apiKey: options.apiKey, maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES };
    this.#core = new HttpServerCore((request, response, signal) => this.#serve(request, response, signal), {
      ...(options.host === undefined ? {} : { host: options.host }),
      ...(options.port === undefined ? {} : { port: options.port }),
    });
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

  async #serve(request: IncomingMessage, response: ServerResponse, signal: AbortSignal): Promise<void> {
    const call = await readIncomingCall(request, response, this.#access);
    if (!call) return;
    const route = this.#api.route(request.method, call.path);
    if (!route) return sendNoRoute(response, request.method, call.path);
    await sendRouteResult(response, await route(call.body, signal));
  }
}

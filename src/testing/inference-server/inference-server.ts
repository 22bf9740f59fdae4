import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_MAX_BODY_BYTES, HttpServerCore, sendJson } from '../../servers/http-server/http-server-core.js';
import { openAiErrorBody } from '../../servers/http-server/openai-error-body.js';
import { readIncomingCall, type CallAccess, type IncomingCall } from '../../servers/openai-compatible/incoming-call.js';
import { OpenAiCompatibleApi } from '../../servers/openai-compatible/openai-compatible-api.js';
import type { OpenAiCompatibleServerOptions } from '../../servers/openai-compatible/openai-compatible-server.js';
import type { RouteResult } from '../../servers/openai-compatible/route.js';
import { sendNoRoute, sendRouteResult } from '../../servers/openai-compatible/send-route-result.js';
import { abortableDelay } from '../../util/abortable-delay.js';
import { withCorruptToken } from './corrupt-token.js';
import { FaultQueue, type Fault } from './faults.js';
import { withPromptIds } from './prompt-ids.js';
import type { Tokenization } from './non-canonical-ids.js';
import { seededGenerator, seededWords, type Responder } from './seeded-generation.js';

export interface InferenceServerOptions extends Omit<OpenAiCompatibleServerOptions, 'generate' | 'host'> {
  /** What the model says; the default is seeded words. */
  respond?: Responder;
  /**
   * How the sampled ids spell what the model says (default `canonical`: `encode(text)`). With
   * `non-canonical`, as a real sampler may, some tokens come as two smaller ones, seeded: the same
   * seed and prompt give the same ids on every route, whose decoded text is the reply's.
   */
  tokenization?: Tokenization;
  /** Whether `/v1/models` lists `max_model_len` (default true; hosted APIs list none). */
  reportsMaxModelLen?: boolean;
  /** Keep every request in `requests` (default true); a long-lived demo or benchmark server turns it off, as the list grows with every request. */
  recordRequests?: boolean;
  /**
   * Called with every request the API key admits, before any fault and before it is answered, which
   * waits for it: a benchmark counts requests here, or holds them to play a slow server.
   */
  onRequest?: (call: RecordedRequest, request: IncomingMessage, signal: AbortSignal) => void | Promise<void>;
}

/** One request as the server saw it. */
export type RecordedRequest = IncomingCall;

/**
 * The OpenAI-compatible server for tests and demos: deterministic seeded replies (their ids
 * canonical or not, see `tokenization`), every request recorded, and faults on demand (latency,
 * status codes with Retry-After, resets, hangs, truncated bodies, corrupted tokens, other or no
 * prompt ids). Binds to loopback only. It serves the same `OpenAiCompatibleApi` as the
 * `OpenAiCompatibleServer`, with faults around it.
 */
export class InferenceServer {
  readonly faults = new FaultQueue();
  readonly requests: RecordedRequest[] = [];
  readonly #core: HttpServerCore;
  readonly #api: OpenAiCompatibleApi;
  readonly #access: CallAccess;
  readonly #truncated = new WeakSet<IncomingMessage>();
  readonly #finishReasons = new WeakMap<IncomingMessage, string>();
  readonly #corruptTokens = new WeakMap<IncomingMessage, Extract<Fault, { kind: 'corrupt-token' }>>();
  readonly #promptIds = new WeakMap<IncomingMessage, number[] | null>();
  readonly #reportsMaxModelLen: boolean;
  readonly #recordRequests: boolean;
  readonly #onRequest: InferenceServerOptions['onRequest'];

  constructor(options: InferenceServerOptions) {
    this.#api = new OpenAiCompatibleApi({
      ...options,
      generate: seededGenerator(options.tokenizer, options.respond ?? seededWords, { tokenization: options.tokenization ?? 'canonical' }),
    });
    this.#access = { apiKey: options.apiKey, maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES };
    this.#core = new HttpServerCore((request, response, signal) => this.#serve(request, response, signal), {
      host: '127.0.0.1',
      ...(options.port === undefined ? {} : { port: options.port }),
    });
    this.#reportsMaxModelLen = options.reportsMaxModelLen ?? true;
    this.#recordRequests = options.recordRequests ?? true;
    this.#onRequest = options.onRequest;
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
    await this.#onRequest?.(call, request, signal);
    if (await this.#injectFault(call, request, response, signal)) return;
    const route = this.#api.route(request.method, call.path);
    if (!route) return sendNoRoute(response, request.method, call.path);
    const result = await route(call.body, signal);
    call.response = result;
    await this.#respond(request, response, result);
  }

  /** Records the call and applies the next fault; returns true when the fault answered (or dropped) the request itself. */
  async #injectFault(call: IncomingCall, request: IncomingMessage, response: ServerResponse, signal: AbortSignal): Promise<boolean> {
    if (this.#recordRequests) this.requests.push(call);
    const fault = this.faults.next();
    switch (fault?.kind) {
      case 'latency':
        await abortableDelay(fault.ms, signal);
        return false;
      case 'hang':
        // Until the client gives up or the server closes: either way the request's signal aborts.
        await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
        return true;
      case 'reset':
        request.socket.destroy();
        return true;
      case 'status':
        sendJson(
          response,
          fault.status,
          openAiErrorBody(fault.message ?? `injected ${fault.status}`, { type: fault.status >= 500 ? 'server_error' : 'invalid_request_error' }),
          fault.retryAfterSeconds === undefined ? {} : { 'retry-after': String(fault.retryAfterSeconds) },
        );
        return true;
      case 'truncate':
        this.#truncated.add(request);
        return false;
      case 'finish-reason':
        this.#finishReasons.set(request, fault.reason);
        return false;
      case 'corrupt-token':
        this.#corruptTokens.set(request, fault);
        return false;
      case 'prompt-ids':
        this.#promptIds.set(request, fault.ids);
        return false;
      default:
        return false;
    }
  }

  /** Sends the route's result as the request's faults have it: rewritten, corrupted, or cut short. */
  #respond(request: IncomingMessage, response: ServerResponse, routed: RouteResult): void | Promise<void> {
    const events = routed.events ? rewritten(routed.events, (event) => this.#rewriteEvent(request, event)) : undefined;
    const corrupt = this.#corruptTokens.get(request);
    const promptIds = this.#promptIds.get(request);
    let body = this.#rewrite(request, routed.body);
    if (corrupt && !events) body = withCorruptToken(body, corrupt);
    if (promptIds !== undefined && !events) body = withPromptIds(body, promptIds);
    const result: RouteResult = { ...routed, body, ...(events ? { events } : {}) };
    if (!this.#truncated.has(request)) return sendRouteResult(response, result);
    if (events) return sendRouteResult(response, { ...result, events: cutShort(events, () => request.socket.destroy()) });
    const text = JSON.stringify(result.body);
    response.writeHead(result.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    response.write(text.slice(0, Math.floor(text.length / 2)));
    setImmediate(() => request.socket.destroy());
  }

  /** A streamed answer's finish reason is on the chunk that ends its choice; the others keep null. */
  #rewriteEvent(request: IncomingMessage, event: unknown): unknown {
    const ends =
      typeof event === 'object' &&
      event !== null &&
      'choices' in event &&
      Array.isArray(event.choices) &&
      event.choices.some((choice: { finish_reason?: unknown }) => choice.finish_reason != null);
    return ends ? this.#rewrite(request, event) : event;
  }

  #rewrite(request: IncomingMessage, body: unknown): unknown {
    const reason = this.#finishReasons.get(request);
    if (reason !== undefined) return withFinishReason(body, reason);
    return !this.#reportsMaxModelLen && request.url === '/v1/models' ? withoutMaxModelLen(body) : body;
  }
}

/** The answer with `reason` as its finish reason, where each API puts it (choices, or SGLang's `meta_info`). */
function withFinishReason(body: unknown, reason: string): unknown {
  if (typeof body !== 'object' || body === null) return body;
  if ('choices' in body && Array.isArray(body.choices))
    return { ...body, choices: body.choices.map((choice: object) => ({ ...choice, finish_reason: reason })) };
  if ('meta_info' in body && typeof body.meta_info === 'object') return { ...body, meta_info: { ...body.meta_info, finish_reason: { type: reason } } };
  return body;
}

async function* rewritten(events: AsyncIterable<unknown>, rewrite: (event: unknown) => unknown): AsyncGenerator<unknown, void, undefined> {
  for await (const event of events) yield rewrite(event);
}

/** The first half of a stream's events (counted once it has ended), then the connection drops before the rest (and before `[DONE]`). */
async function* cutShort(events: AsyncIterable<unknown>, drop: () => void): AsyncGenerator<unknown, void, undefined> {
  const all: unknown[] = [];
  for await (const event of events) all.push(event);
  yield* all.slice(0, Math.floor(all.length / 2));
  drop();
}

function withoutMaxModelLen(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || !('data' in body) || !Array.isArray(body.data)) return body;
  return { ...body, data: body.data.map(({ max_model_len: _omitted, ...model }: { max_model_len?: number }) => model) };
}

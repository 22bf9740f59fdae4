import type { z } from 'zod';
import { GymnastError } from '../core/errors/gymnast-error.js';
import { LimitExceededError } from '../core/errors/limit-exceeded-error.js';
import { RequestTimeoutError } from '../core/errors/request-timeout-error.js';
import { TransportError } from '../core/errors/transport-error.js';
import { extensibleCopy } from '../util/extensible-copy.js';
import { redactUrls } from '../util/redact-urls.js';
import { dispatchReply, type ReplyErrors, type ReplyRequest } from './dispatch-reply.js';
import type { HttpReply } from './http-reply.js';
import { Http1Pool } from './http1-pool.js';
import type { JsonReading } from './read-json-reply.js';
import type { RequestDispatcher } from './request-dispatcher.js';
import { requestUrl, withQuery } from './request-url.js';
import { undiciPool } from './undici-pool.fast.js';

/** A request `JsonClient` sends, and what its answer must be (the server side's is `JsonRequest`). */
export interface JsonClientRequest<T> {
  method: 'GET' | 'POST';
  /**
   * The server: `http://host:port`, with a path its endpoints are under, a query sent with every
   * request (`?api-version=…`), and `user:password@` sent as Basic auth unless `headers` authorize.
   */
  baseUrl: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** What a successful answer must look like; anything else is a PolicyError naming the field. */
  schema: z.ZodType<T>;
  /**
   * A hand check of the answer's usual shape that returns what `schema` would, or undefined to let
   * `schema` read it (and name what is wrong). It must accept nothing `schema` refuses.
   */
  read?: (value: unknown) => T | undefined;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** A request whose answer is taken as it comes, whatever its status. */
export type HttpExchange = Omit<JsonClientRequest<unknown>, 'schema' | 'read'>;

export interface JsonClientOptions {
  /** Most connections per server (default 1,024); they are opened as requests need them. */
  connections?: number;
  /** The largest answer body taken, in bytes (default 64 MiB); a larger one is a LimitExceededError (`response-bytes`), not retried. */
  maxResponseBytes?: number;
}

/** A vLLM answer with logprobs runs ~100 bytes a token: 64 MiB is far past any real answer, and bounds a runaway one. */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * undici opens a pool's connections only when every open one is busy, so the cap is not what is
 * opened: a run holds about as many as it keeps requests in flight. It was 256, which queued three
 * of four requests inside undici at concurrency 1,024 (one request per connection): a server that
 * batches (vLLM, SGLang) saw at most 256 at a time.
 */
const MAX_CONNECTIONS = 1_024;
/** How long an idle connection is kept for the next request (a server's own shorter limit wins). */
const KEEP_ALIVE_MS = 60_000;

/**
 * A base URL taken apart once: undici's pools take an origin alone, and drop a user and password
 * without a word (a key in the URL would never reach the server).
 */
interface Endpoint {
  /** The pool, once made (an HTTPS one waits for undici's Pool class to load: see undici-pool.fast.ts). */
  loading: Promise<RequestDispatcher>;
  /** The pool, once made: requests then go to it at once, with nothing to wait on first. */
  pool: RequestDispatcher | undefined;
  /** The base URL's path, put before each request's. */
  prefix: string;
  /** The base URL's query, put after each request's path. */
  query: string;
  /** The headers of every request: JSON, and `Basic …` auth from the base URL's user and password. */
  headers: Record<string, string>;
}

/**
 * JSON over HTTP, one pool per server: gymnast's own HTTP/1.1 connections for `http:` (`Http1Pool`,
 * a fifth less CPU a turn than undici's Pool at fleet scale), undici's for `https:` (5–8× less client
 * CPU than fetch or the openai SDK).
 * Every failure comes back typed: transport, timeout, server status (with Retry-After), or a body
 * that does not match its schema, its URL's credentials masked. It never retries: that is the
 * router's job.
 */
export class JsonClient {
  readonly #endpoints = new Map<string, Endpoint>();
  readonly #connections: number;
  readonly #maxResponseBytes: number;
  readonly #errors: ReplyErrors = {
    timedOut: (url, timeoutMs) => new RequestTimeoutError(url, timeoutMs),
    tooLarge: (url, bytes, maxBodyBytes) =>
      new LimitExceededError(
        'response-bytes',
        bytes,
        maxBodyBytes,
        `${redactUrls(url)}: the answer passed ${maxBodyBytes} bytes, the most taken (JsonClientOptions.maxResponseBytes)`,
      ),
    failed: (url, error) =>
      GymnastError.isInstance(error) ? error : new TransportError(url, error instanceof Error ? error.message : String(error), { cause: error }),
  };

  constructor(options: JsonClientOptions = {}) {
    this.#connections = options.connections ?? MAX_CONNECTIONS;
    // undici read 0 as no cap; a pool of none would hold every request to its deadline.
    if (!Number.isSafeInteger(this.#connections) || this.#connections < 1) {
      throw new TypeError(`JsonClientOptions.connections must be a whole number of at least 1, not ${String(options.connections)}`);
    }
    this.#maxResponseBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  }

  /**
   * The answer's body read as `schema` says (`readJsonReply`); a status of 400 or more is a
   * `ServerError`. The answer is read by the request's handler as it ends, not in a promise step of
   * its own: that step (a promise, its reaction, a closure and its context) was memory per request in
   * flight (issue 26). A subclass that answers `exchange` itself (SimFleetClient) reads its answers
   * with `readJsonReply` too.
   */
  request<T>(request: JsonClientRequest<T>): Promise<T> {
    return this.#exchange(request, requestUrl(request.baseUrl, request.path), request) as Promise<T>;
  }

  /**
   * Sends a request and gives its answer as it came, for callers that read an error status's body or
   * the headers (NeMo Gym's tool endpoints answer the model even with an error; sessions are cookies).
   * Only failures to get an answer are thrown: transport and timeout, typed. Neither this nor `request`
   * is an async function: a request waits on the promise `dispatchReply` makes, which types its own
   * failures, and nothing else, since every frame waiting is memory per request in flight (issue 26).
   */
  exchange(request: HttpExchange): Promise<HttpReply> {
    return this.#exchange(request, requestUrl(request.baseUrl, request.path), undefined) as Promise<HttpReply>;
  }

  /** The answer as it came, or read as `reading` says when there is one. */
  #exchange(request: HttpExchange, url: string, reading: JsonReading<unknown> | undefined): Promise<unknown> {
    const endpoint = this.#endpoint(request.baseUrl);
    const { pool } = endpoint;
    if (pool !== undefined) return this.#dispatch(pool, endpoint, request, url, reading);
    return endpoint.loading.then(
      () => this.#exchange(request, url, reading),
      (error: unknown) => {
        throw request.signal?.aborted ? request.signal.reason : this.#errors.failed(url, error);
      },
    );
  }

  #dispatch(
    pool: RequestDispatcher,
    { prefix, query, headers }: Endpoint,
    request: HttpExchange,
    url: string,
    reading: JsonReading<unknown> | undefined,
  ): Promise<unknown> {
    const sent: ReplyRequest = {
      method: request.method,
      path: withQuery(`${prefix}${request.path}`, query),
      // Not a spread: a spread copy of a non-literal object gets a hidden class of its own, ~200 bytes per request in flight (see extensibleCopy).
      headers: request.headers ? extensibleCopy(headers, request.headers) : headers,
      body: request.body,
    };
    return dispatchReply(pool, sent, {
      url,
      signal: request.signal,
      timeoutMs: request.timeoutMs,
      maxBodyBytes: this.#maxResponseBytes,
      errors: this.#errors,
      // The reading's fields, not the request: the request itself is not kept while it waits.
      schema: reading?.schema,
      read: reading?.read,
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.#endpoints.values()].map(async (endpoint) => (await endpoint.loading).close()));
    this.#endpoints.clear();
  }

  async #pool(url: URL): Promise<RequestDispatcher> {
    if (url.protocol === 'http:') return new Http1Pool(url, { connections: this.#connections, keepAliveMs: KEEP_ALIVE_MS });
    const PoolClass = await undiciPool();
    // No headers or body timeout of undici's own: each request's deadline (`timeoutMs`, over the
    // whole exchange) is the one that counts, and undici's is a timer per connection in flight (issue 26).
    return new PoolClass(url.origin, { connections: this.#connections, keepAliveTimeout: KEEP_ALIVE_MS, pipelining: 1, headersTimeout: 0, bodyTimeout: 0 });
  }

  #endpoint(baseUrl: string): Endpoint {
    let endpoint = this.#endpoints.get(baseUrl);
    if (!endpoint) {
      const url = new URL(baseUrl);
      const made: Endpoint = {
        loading: this.#pool(url).then((pool) => (made.pool = pool)),
        pool: undefined,
        prefix: url.pathname.replace(/\/+$/, ''),
        query: url.search,
        headers: { 'content-type': 'application/json', ...basicAuthorization(url) },
      };
      endpoint = made;
      this.#endpoints.set(baseUrl, endpoint);
    }
    return endpoint;
  }
}

/** The user and password of a URL as a Basic `authorization` header, as curl and Python's HTTP clients send them. */
function basicAuthorization(url: URL): { authorization?: string } {
  if (url.username === '' && url.password === '') return {};
  return { authorization: `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}` };
}

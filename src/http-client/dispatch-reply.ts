import { startTimeout, stopTimeout, type TimeoutWatcher } from '../util/shared-timeouts.js';
import { type AbortWatcher, unwatchAbort, watchAbort } from '../util/subscribe-abort.js';
import type { HttpReply } from './http-reply.js';
import { type JsonReading, readJsonReply } from './read-json-reply.js';
import type { HttpRequest, RequestController, RequestDispatcher, RequestHandler } from './request-dispatcher.js';

/** What a request rejects with when it fails: one set per client, shared by its requests (no closures per request in flight). */
export interface ReplyErrors {
  /** The deadline passed. */
  timedOut(url: string, timeoutMs: number): unknown;
  /** The body passed `maxBodyBytes`. */
  tooLarge(url: string, bytes: number, maxBodyBytes: number): unknown;
  /** No answer: the connection's error, or a request the pool refused to send. */
  failed(url: string, error: unknown): unknown;
}

/** When a request gives up, and how it says so. */
export interface ReplyLimits {
  /** The request's URL, for its errors. */
  url: string;
  /** The caller's signal: when it aborts, the request rejects with its reason. */
  signal: AbortSignal | undefined;
  /** The deadline: when it passes, the request rejects with `errors.timedOut`. */
  timeoutMs: number;
  /** The most body bytes kept: past it, the request rejects with `errors.tooLarge` and the connection is dropped. */
  maxBodyBytes: number;
  errors: ReplyErrors;
  /** When given, the answer is read as JSON (`readJsonReply`) and the request gives what it reads, or rejects with why it could not. */
  schema?: JsonReading<unknown>['schema'] | undefined;
  read?: JsonReading<unknown>['read'];
}

/**
 * Sends one request through `dispatcher` and gives its whole answer (an `HttpReply`, or what
 * `limits.schema` reads from it), the body decoded once at the end as undici's `request()` +
 * `body.text()` decode it, without a Readable stream per response. It gives up when `limits` say, at
 * once even while the request still waits for a connection (the pool then drops it when it reaches
 * one). Otherwise it rejects with the connection's error. The deadline is a shared timeout
 * (`startTimeout`) and the signal is watched through `watchAbort`: no timer, closure or
 * AbortController per request. Nothing is left behind (timeout, subscription) however it ends.
 * Failures are typed here (`limits.errors`, `readJsonReply`), so a caller waits on this promise alone.
 */
export function dispatchReply(dispatcher: RequestDispatcher, request: ReplyRequest, limits: ReplyLimits): Promise<unknown> {
  if (limits.signal?.aborted) return Promise.reject(limits.signal.reason);
  return new Promise((resolve, reject) => {
    const handler = new ReplyHandler(limits, resolve, reject);
    try {
      dispatcher.dispatch(new JsonDispatch(request, handler), handler);
    } catch (error) {
      handler.onResponseError(undefined, error as Error);
    }
  });
}

/** What is sent: `body` is a JSON value (undefined for none), serialized as the pool takes the request to a connection. */
export interface ReplyRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

/**
 * One request as a dispatcher takes it, its body serialized when the dispatcher reads it, as it takes
 * the request to a connection, not before: a request waiting in the pool for one (most, at fleet
 * scale) holds the value, which its caller keeps anyway for a retry, and not its JSON too, as long as
 * the prompt's ids (issue 26). A value JSON cannot serialize fails the request there, as a failed
 * connection would (no answer), and the request is dropped before it is written.
 */
class JsonDispatch implements HttpRequest {
  readonly method: ReplyRequest['method'];
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly #value: unknown;
  readonly #handler: ReplyHandler;

  constructor({ method, path, headers, body }: ReplyRequest, handler: ReplyHandler) {
    this.method = method;
    this.path = path;
    this.headers = headers;
    this.#value = body;
    this.#handler = handler;
  }

  get body(): string | null {
    if (this.#value === undefined) return null;
    try {
      return JSON.stringify(this.#value);
    } catch (error) {
      this.#handler.fail(error);
      return null;
    }
  }
}

/** One per request in flight, so it holds what the request needs and no closure of its own (issue 26). */
class ReplyHandler implements RequestHandler, AbortWatcher, TimeoutWatcher {
  readonly #timeoutMs: number;
  #reason: unknown;
  #resolve: ((answer: unknown) => void) | undefined;
  readonly #reject: (reason: unknown) => void;
  // The limits' fields, not the limits object: one object less per request in flight.
  readonly #url: string;
  readonly #signal: AbortSignal | undefined;
  readonly #maxBodyBytes: number;
  readonly #errors: ReplyErrors;
  readonly #schema: ReplyLimits['schema'];
  readonly #read: ReplyLimits['read'];
  #controller: RequestController | undefined;
  #status = 0;
  #headers: HttpReply['headers'] | undefined;
  #chunks: Buffer[] | undefined;
  #length = 0;

  constructor(limits: ReplyLimits, resolve: (answer: unknown) => void, reject: (reason: unknown) => void) {
    this.#resolve = resolve;
    this.#reject = reject;
    const { url, signal, errors } = limits;
    this.#url = url;
    this.#signal = signal;
    this.#maxBodyBytes = limits.maxBodyBytes;
    this.#errors = errors;
    this.#schema = limits.schema;
    this.#read = limits.read;
    this.#timeoutMs = limits.timeoutMs;
    startTimeout(this, limits.timeoutMs);
    if (signal) watchAbort(signal, this);
  }

  /** The request cannot be sent (its body is not JSON): it fails as undici's failures do, and is dropped when it reaches a connection. */
  fail(error: unknown): void {
    if (this.#resolve !== undefined) this.#abort(this.#errors.failed(this.#url, error));
  }

  /** The deadline passed. */
  onTimeout(): void {
    this.#abort(this.#errors.timedOut(this.#url, this.#timeoutMs));
  }

  /** The caller's signal aborted. */
  onAbort(reason: unknown): void {
    this.#abort(reason);
  }

  /** Settles now, and stops the request if it is on a connection (else when it reaches one). */
  #abort(reason: unknown): void {
    const controller = this.#controller;
    this.#reason = reason;
    this.#settle();
    this.#reject(reason);
    controller?.abort(reason as Error);
  }

  get gaveUp(): boolean {
    return this.#resolve === undefined;
  }

  onRequestStart(controller: RequestController): void {
    if (this.#resolve === undefined) controller.abort(this.#reason as Error);
    else this.#controller = controller;
  }

  onResponseStart(_controller: RequestController, status: number, headers: HttpReply['headers']): void {
    // 1xx answers are informational; the answer proper follows.
    if (status < 200) return;
    this.#status = status;
    this.#headers = headers;
  }

  onResponseData(_controller: RequestController, chunk: Buffer): void {
    if (this.#resolve === undefined) return;
    this.#length += chunk.length;
    // A server that never stops sending must not fill the client's memory before the deadline.
    if (this.#length > this.#maxBodyBytes) {
      this.#abort(this.#errors.tooLarge(this.#url, this.#length, this.#maxBodyBytes));
      return;
    }
    (this.#chunks ??= []).push(chunk);
  }

  onResponseEnd(): void {
    const resolve = this.#resolve;
    if (resolve === undefined) return;
    this.#settle();
    const reply: HttpReply = { status: this.#status, headers: this.#headers ?? {}, text: decode(this.#chunks ?? [], this.#length) };
    const schema = this.#schema;
    if (schema === undefined) {
      resolve(reply);
      return;
    }
    let answer: unknown;
    try {
      answer = readJsonReply(this.#url, reply, { schema, read: this.#read });
    } catch (error) {
      this.#reject(error);
      return;
    }
    resolve(answer);
  }

  onResponseError(_controller: RequestController | undefined, error: Error): void {
    if (this.#resolve === undefined) return;
    this.#settle();
    const signal = this.#signal;
    this.#reject(signal?.aborted ? signal.reason : this.#errors.failed(this.#url, error));
  }

  #settle(): void {
    this.#resolve = undefined;
    this.#controller = undefined;
    stopTimeout(this, this.#timeoutMs);
    if (this.#signal) unwatchAbort(this.#signal, this);
  }
}

/** The body as undici's `text()` reads it: UTF-8, a leading byte-order mark dropped. */
function decode(chunks: readonly Buffer[], length: number): string {
  if (length === 0) return '';
  const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
  const start = bytes.length > 2 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return bytes.toString('utf8', start);
}

import type { Dispatcher } from 'undici';
import { subscribeAbort } from '../util/subscribe-abort.js';
import type { HttpReply } from './http-reply.js';

/** When a request gives up. */
export interface ReplyLimits {
  /** The caller's signal: when it aborts, the request rejects with its reason. */
  signal: AbortSignal | undefined;
  /** The deadline: when it passes, the request rejects with `timedOut()`. */
  timeoutMs: number;
  timedOut(): unknown;
  /** The most body bytes kept: past it, the request rejects with `tooLarge(bytes received)` and the connection is dropped. */
  maxBodyBytes: number;
  tooLarge(bytes: number): unknown;
}

/**
 * Sends one request through `dispatcher` and gives its whole answer, the body decoded once at the end
 * as undici's `request()` + `body.text()` decode it, without the Readable stream they build for every
 * response. It gives up when `limits` say, at once even while the request still waits for a
 * connection (undici then drops it when it reaches one). Otherwise it rejects with undici's error.
 * The deadline is a timer of its own and the signal is watched through `subscribeAbort`: no
 * AbortController per request. Nothing is left behind (timer, subscription) however it ends.
 */
export function dispatchReply(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions, limits: ReplyLimits): Promise<HttpReply> {
  if (limits.signal?.aborted) return Promise.reject(limits.signal.reason);
  return new Promise((resolve, reject) => {
    dispatcher.dispatch(options, new ReplyHandler(limits, resolve, reject));
  });
}

class ReplyHandler implements Dispatcher.DispatchHandler {
  readonly #timer: NodeJS.Timeout;
  readonly #unsubscribe: (() => void) | undefined;
  #reason: unknown;
  #resolve: ((reply: HttpReply) => void) | undefined;
  readonly #reject: (reason: unknown) => void;
  readonly #limits: ReplyLimits;
  #controller: Dispatcher.DispatchController | undefined;
  #status = 0;
  #headers: HttpReply['headers'] = {};
  readonly #chunks: Buffer[] = [];
  #length = 0;

  constructor(limits: ReplyLimits, resolve: (reply: HttpReply) => void, reject: (reason: unknown) => void) {
    this.#resolve = resolve;
    this.#reject = reject;
    this.#limits = limits;
    this.#timer = setTimeout(() => this.#abort(limits.timedOut()), limits.timeoutMs);
    this.#unsubscribe = limits.signal && subscribeAbort(limits.signal, (reason) => this.#abort(reason));
  }

  /** Settles now, and stops the request if it is on a connection (else when it reaches one). */
  #abort(reason: unknown): void {
    const controller = this.#controller;
    this.#reason = reason;
    this.#settle();
    this.#reject(reason);
    controller?.abort(reason as Error);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.#resolve === undefined) controller.abort(this.#reason as Error);
    else this.#controller = controller;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, status: number, headers: HttpReply['headers']): void {
    // 1xx answers are informational; the answer proper follows.
    if (status < 200) return;
    this.#status = status;
    this.#headers = headers;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#resolve === undefined) return;
    this.#length += chunk.length;
    // A server that never stops sending must not fill the client's memory before the deadline.
    if (this.#length > this.#limits.maxBodyBytes) {
      this.#abort(this.#limits.tooLarge(this.#length));
      return;
    }
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    const resolve = this.#resolve;
    if (resolve === undefined) return;
    this.#settle();
    resolve({ status: this.#status, headers: this.#headers, text: decode(this.#chunks, this.#length) });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.#resolve === undefined) return;
    this.#settle();
    this.#reject(error);
  }

  #settle(): void {
    this.#resolve = undefined;
    this.#controller = undefined;
    clearTimeout(this.#timer);
    this.#unsubscribe?.();
  }
}

/** The body as undici's `text()` reads it: UTF-8, a leading byte-order mark dropped. */
function decode(chunks: readonly Buffer[], length: number): string {
  if (length === 0) return '';
  const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
  const start = bytes.length > 2 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return bytes.toString('utf8', start);
}

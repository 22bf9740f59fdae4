import type { Dispatcher } from 'undici';
import type { HttpReply } from './json-client.js';

/**
 * Sends one request through `dispatcher` and gives its whole answer, the body decoded once at the end,
 * as undici's `request()` + `body.text()` do (UTF-8, a byte-order mark dropped), without the Readable
 * stream they build per response (~10% of a collect's CPU). Rejects with undici's error, or with
 * `signal`'s reason once it aborts: at once, even while the request still waits for a connection
 * (it is then dropped when it reaches one), and nothing is kept on `signal` once the request ends.
 */
export function dispatchReply(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions, signal: AbortSignal): Promise<HttpReply> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    dispatcher.dispatch(options, new ReplyHandler(signal, resolve, reject));
  });
}

class ReplyHandler implements Dispatcher.DispatchHandler {
  readonly #signal: AbortSignal;
  #resolve: ((reply: HttpReply) => void) | undefined;
  readonly #reject: (reason: unknown) => void;
  #controller: Dispatcher.DispatchController | undefined;
  #status = 0;
  #headers: HttpReply['headers'] = {};
  readonly #chunks: Buffer[] = [];
  #length = 0;

  constructor(signal: AbortSignal, resolve: (reply: HttpReply) => void, reject: (reason: unknown) => void) {
    this.#signal = signal;
    this.#resolve = resolve;
    this.#reject = reject;
    signal.addEventListener('abort', this);
  }

  /** The signal's `abort`: settles now, and stops the request if it is on a connection (else when it reaches one). */
  handleEvent(): void {
    const controller = this.#controller;
    this.#settle();
    this.#reject(this.#signal.reason);
    controller?.abort(this.#signal.reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.#resolve === undefined) controller.abort(this.#signal.reason);
    else this.#controller = controller;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, status: number, headers: HttpReply['headers']): void {
    // 1xx answers are informational; the answer proper follows.
    if (status < 200) return;
    this.#status = status;
    this.#headers = headers;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#length += chunk.length;
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
    this.#signal.removeEventListener('abort', this);
  }
}

/** The body as undici's `text()` reads it: UTF-8, a leading byte-order mark dropped. */
function decode(chunks: readonly Buffer[], length: number): string {
  if (length === 0) return '';
  const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
  const start = bytes.length > 2 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return bytes.toString('utf8', start);
}

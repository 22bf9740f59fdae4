import { maxHeaderSize } from 'node:http';
import { type ConnectionOwner, Http1Connection, type Origin, type PendingRequest } from './http1-connection.js';
import type { HttpRequest, RequestDispatcher, RequestHandler } from './request-dispatcher.js';

export interface Http1PoolOptions {
  /** The most connections open at once; requests past them wait, first come first served. */
  connections: number;
  /** The longest a connection sits idle before it is closed rather than reused. */
  keepAliveMs: number;
}

/**
 * Plain-HTTP/1.1 connections to one server, one request on each at a time, opened as requests need
 * them up to a cap. It does what undici's Pool did here for 40% of its CPU per request (a collect at
 * fleet scale spent a fifth of its CPU in undici and its parser): the answers these clients read are
 * small JSON bodies, so the head is found with one search and the body framed by length or chunks
 * (`ResponseParser`), with nothing per header. Idle connections do not keep the process alive.
 */
export class Http1Pool implements RequestDispatcher, ConnectionOwner {
  readonly #origin: Origin;
  readonly #connections: number;
  /** Idle connections, the most recently used last: it is the likeliest still open. */
  readonly #idle: Http1Connection[] = [];
  readonly #open = new Set<Http1Connection>();
  /** Requests waiting for a connection, from `#next` on (a queue without shifting the array). */
  #waiting: (PendingRequest | undefined)[] = [];
  #next = 0;
  #closing: (() => void) | undefined;
  /** Every caller of `close` waits on this one promise: a second call must not orphan the first. */
  #closedPromise: Promise<void> | undefined;
  #closed = false;

  constructor(url: URL, options: Http1PoolOptions) {
    if (url.protocol !== 'http:') throw new TypeError(`Http1Pool speaks plain HTTP, not ${url.protocol}`);
    this.#origin = {
      host: url.host,
      // An IPv6 literal comes bracketed in a URL, and bare to a socket.
      hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port === '' ? 80 : Number(url.port),
      keepAliveMs: options.keepAliveMs,
      maxHeaderBytes: maxHeaderSize,
    };
    this.#connections = options.connections;
  }

  dispatch(request: HttpRequest, handler: RequestHandler): void {
    if (this.#closed) {
      handler.onResponseError(undefined, new Error('the HTTP client is closed'));
      return;
    }
    this.#send(request, handler);
  }

  #send(request: HttpRequest, handler: RequestHandler): void {
    const idle = this.#takeIdle();
    if (idle !== undefined) {
      if (!idle.start(request, handler)) this.released(idle);
      return;
    }
    if (this.#open.size < this.#connections) {
      const connection = this.#connect();
      if (!connection.start(request, handler)) this.released(connection);
      return;
    }
    this.#waiting.push({ request, handler });
  }

  released(connection: Http1Connection): void {
    for (let waiting = this.#dequeue(); waiting !== undefined; waiting = this.#dequeue()) {
      if (connection.start(waiting.request, waiting.handler)) return;
    }
    this.#idle.push(connection);
    this.#settleClose();
  }

  closed(connection: Http1Connection, lost?: PendingRequest): void {
    this.#open.delete(connection);
    const at = this.#idle.lastIndexOf(connection);
    if (at >= 0) this.#idle.splice(at, 1);
    if (lost !== undefined && !lost.handler.gaveUp) {
      // Sent again first, and on a new connection: a first request is never resent, so once at most.
      const fresh = this.#connect();
      if (!fresh.start(lost.request, lost.handler)) this.released(fresh);
    } else {
      // A request waiting for a connection gets this one's place.
      const waiting = this.#dequeue();
      if (waiting !== undefined) this.#send(waiting.request, waiting.handler);
    }
    this.#settleClose();
  }

  /** Takes no more requests, waits for those in flight and waiting, then closes every connection. */
  close(): Promise<void> {
    this.#closed = true;
    this.#closedPromise ??= new Promise((resolve) => {
      this.#closing = resolve;
      this.#settleClose();
    });
    return this.#closedPromise;
  }

  #settleClose(): void {
    if (this.#closing === undefined || this.#open.size > this.#idle.length || this.#next < this.#waiting.length) return;
    for (const connection of this.#idle) connection.destroy();
    const resolve = this.#closing;
    this.#closing = undefined;
    resolve();
  }

  #connect(): Http1Connection {
    const connection = new Http1Connection(this.#origin, this);
    this.#open.add(connection);
    return connection;
  }

  /** The most recently used idle connection that has not sat idle too long; older ones are closed. */
  #takeIdle(): Http1Connection | undefined {
    const now = performance.now();
    for (let connection = this.#idle.pop(); connection !== undefined; connection = this.#idle.pop()) {
      if (!connection.expired(now)) return connection;
      connection.destroy();
    }
    return undefined;
  }

  /** The first waiting request that has not given up; those that have are dropped on the way (no connection is opened for them). */
  #dequeue(): PendingRequest | undefined {
    let waiting = this.#shift();
    while (waiting?.handler.gaveUp) waiting = this.#shift();
    return waiting;
  }

  #shift(): PendingRequest | undefined {
    if (this.#next >= this.#waiting.length) return undefined;
    const waiting = this.#waiting[this.#next];
    this.#waiting[this.#next] = undefined;
    this.#next += 1;
    if (this.#next === this.#waiting.length) {
      this.#waiting = [];
      this.#next = 0;
    } else if (this.#next > 1_024 && this.#next * 2 > this.#waiting.length) {
      this.#waiting = this.#waiting.slice(this.#next);
      this.#next = 0;
    }
    return waiting;
  }
}

import { connect, type Socket } from 'node:net';
import { HttpProtocolError, ResponseParser, type ResponseHeaders, type ResponseSink } from './http1-response-parser.js';
import type { HttpRequest, RequestController, RequestHandler } from './request-dispatcher.js';

/** Where a connection goes, and how long it may sit idle. */
export interface Origin {
  /** `host:port` as the Host header gives it. */
  host: string;
  hostname: string;
  port: number;
  /** The longest a connection waits idle for its next request (the server's own hint may shorten it). */
  keepAliveMs: number;
  maxHeaderBytes: number;
}

/** A request and its handler, as a pool holds them. */
export interface PendingRequest {
  request: HttpRequest;
  handler: RequestHandler;
}

/** What a connection tells its pool. */
export interface ConnectionOwner {
  /** The request is done and the connection can take another. */
  released(connection: Http1Connection): void;
  /**
   * The connection is gone (closed by either side, or broken). `lost` is a request it had written
   * after an earlier one and heard nothing of: the server closed the connection as it sat idle
   * (uvicorn does at 5 s, saying nothing beforehand) and never read it. It is to be sent again.
   */
  closed(connection: Http1Connection, lost?: PendingRequest): void;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/**
 * A header value may not break the request's framing (no CR, LF or NUL), and is ASCII: a character
 * past it has no one encoding on the wire (Node's http sends Latin-1, a server may read UTF-8).
 */
const UNSAFE_VALUE = /[^\t\x20-\x7e]/;
/** A request target is visible ASCII: a URL's own parser percent-encodes the rest, so anything else was never through one. */
const UNSAFE_TARGET = /[^\x21-\x7e]/;
/**
 * Headers the client sets itself. The body's framing is the client's: a caller's length or coding
 * beside it would make the server read another body, and answer requests never sent. A caller's Host
 * (a virtual host behind a proxy) replaces the origin's, as undici sent it: two are a 400 at nginx.
 */
const CLIENT_HEADER = /^(?:host|content-length|transfer-encoding)$/i;
/** undici's defaults, kept: how long a connect may take, and TCP keep-alive probes after a minute idle. */
const CONNECT_TIMEOUT_MS = 10_000;
const TCP_KEEP_ALIVE_MS = 60_000;
/** A server's `Keep-Alive: timeout=N` is followed with this much to spare: a request sent as the server closes is lost. */
const KEEP_ALIVE_MARGIN_MS = 1_000;

/**
 * One HTTP/1.1 keep-alive connection carrying one request at a time: the request written in one
 * piece, the answer read by `ResponseParser` and handed to the request's handler as it comes. A
 * request aborted before it is written leaves the connection clean for the next; one aborted after
 * drops the connection, since its answer may still come. A request lost to the server's idle close
 * (written on a reused connection, closed with no byte of answer) goes back to the pool once, as
 * browsers resend it: otherwise a healthy replica's reset fails a rollout and evicts the replica.
 */
export class Http1Connection implements ResponseSink, RequestController {
  readonly #socket: Socket;
  readonly #origin: Origin;
  readonly #owner: ConnectionOwner;
  readonly #parser: ResponseParser;
  #handler: RequestHandler | undefined;
  #request: HttpRequest | undefined;
  #written = false;
  /** Requests written on it: from the second on, the server may have closed it as idle. */
  #sent = 0;
  /** Whether any byte of the current request's answer came. */
  #heard = false;
  #lost: PendingRequest | undefined;
  #idleSince = 0;
  #idleLimitMs: number;
  #gone = false;

  constructor(origin: Origin, owner: ConnectionOwner) {
    this.#origin = origin;
    this.#owner = owner;
    this.#idleLimitMs = origin.keepAliveMs;
    this.#parser = new ResponseParser(this, origin.maxHeaderBytes);
    this.#socket = connect({ host: origin.hostname, port: origin.port, noDelay: true, keepAlive: true, keepAliveInitialDelay: TCP_KEEP_ALIVE_MS });
    // A server that never answers the connect fails its request in seconds, not at the request's deadline, so the router moves on.
    this.#socket.setTimeout(CONNECT_TIMEOUT_MS);
    this.#socket.once('connect', () => this.#socket.setTimeout(0));
    this.#socket.on('timeout', () =>
      this.#fail(Object.assign(new Error(`connect timed out after ${CONNECT_TIMEOUT_MS} ms (${origin.host})`), { code: 'ETIMEDOUT' })),
    );
    this.#socket.on('data', (chunk: Buffer) => this.#read(chunk));
    this.#socket.on('end', () => this.#ended());
    this.#socket.on('error', (error: Error) => this.#fail(error));
    this.#socket.on('close', () => this.#closed());
  }

  /** Whether it sat idle past its limit (the server may have closed it meanwhile). */
  expired(now: number): boolean {
    return now - this.#idleSince >= this.#idleLimitMs;
  }

  /**
   * Sends `request`; false when its handler aborted it before it was written (the connection is then
   * free for another at once).
   */
  start(request: HttpRequest, handler: RequestHandler): boolean {
    this.#handler = handler;
    this.#request = request;
    this.#written = false;
    this.#heard = false;
    handler.onRequestStart(this);
    if (this.#handler !== handler) return false;
    let text: string;
    try {
      text = requestText(request, this.#origin.host);
    } catch (error) {
      this.#handler = undefined;
      handler.onResponseError(this, error as Error);
      return false;
    }
    // Reading the body serializes it, and a body that is not JSON fails its request there (JsonDispatch).
    if (this.#handler !== handler) return false;
    this.#parser.expect(request.method === 'HEAD');
    this.#socket.ref();
    this.#socket.write(text);
    this.#written = true;
    this.#sent += 1;
    return true;
  }

  /** The request's handler gave up: the answer, if it comes, must not reach the next request. */
  abort(): void {
    if (this.#handler === undefined) return;
    this.#handler = undefined;
    if (this.#written) this.destroy();
  }

  destroy(): void {
    this.#socket.destroy();
  }

  head(status: number, headers: ResponseHeaders): void {
    this.#idleLimitMs = Math.min(this.#origin.keepAliveMs, keepAliveHintMs(headers['keep-alive']));
    this.#handler?.onResponseStart(this, status, headers);
  }

  body(chunk: Buffer): void {
    this.#handler?.onResponseData(this, chunk);
  }

  complete(reusable: boolean): void {
    const handler = this.#handler;
    this.#handler = undefined;
    this.#request = undefined;
    if (reusable && handler !== undefined && !this.#gone) {
      this.#idleSince = performance.now();
      this.#socket.unref();
      this.#owner.released(this);
    } else {
      this.destroy();
    }
    handler?.onResponseEnd(this);
  }

  #read(chunk: Buffer): void {
    // Bytes while no request waits (an answer to an aborted one, or nothing asked for): the connection is out of step.
    if (this.#handler === undefined) {
      this.destroy();
      return;
    }
    this.#heard = true;
    try {
      this.#parser.push(chunk);
    } catch (error) {
      this.#fail(error as Error);
    }
  }

  /** The server closed its side: the end of an answer read until close, or one cut short. */
  #ended(): void {
    if (this.#handler === undefined) return;
    try {
      this.#parser.finish();
    } catch (error) {
      this.#fail(error as Error);
    }
  }

  #fail(error: Error): void {
    const handler = this.#handler;
    const request = this.#request;
    this.#handler = undefined;
    this.#request = undefined;
    this.destroy();
    if (handler === undefined) return;
    if (request !== undefined && this.#written && this.#sent > 1 && !this.#heard) this.#lost = { request, handler };
    else handler.onResponseError(this, error);
  }

  #closed(): void {
    if (this.#handler !== undefined) this.#fail(new HttpProtocolError('other side closed'));
    this.#gone = true;
    this.#owner.closed(this, this.#lost);
    this.#lost = undefined;
  }
}

/** The request line, headers and body as one string, so the request goes out in one write. */
function requestText(request: HttpRequest, host: string): string {
  if (UNSAFE_TARGET.test(request.path))
    throw new TypeError(`the request path ${JSON.stringify(request.path)} has a space, control or non-ASCII character (percent-encode it)`);
  let hostLine = `host: ${host}\r\n`;
  let headers = '';
  for (const name in request.headers) {
    const value = request.headers[name]!;
    if (!TOKEN.test(name) || UNSAFE_VALUE.test(value))
      throw new TypeError(`the request header ${JSON.stringify(name)} is not a valid HTTP header (a name is a token, a value ASCII without CR, LF or NUL)`);
    if (!CLIENT_HEADER.test(name)) headers += `${name}: ${value}\r\n`;
    else if (name.length === 4) hostLine = `${name}: ${value}\r\n`;
    else throw new TypeError(`the request header ${JSON.stringify(name)} is set by the client from the body`);
  }
  const text = `${request.method} ${request.path} HTTP/1.1\r\n${hostLine}${headers}`;
  // Read once: a dispatcher may serialize the body as it is read (JsonDispatch).
  const { body } = request;
  if (body === null) return `${text}\r\n`;
  return `${text}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** A server's `Keep-Alive: timeout=N` as the most a connection may then sit idle; Infinity without one. */
function keepAliveHintMs(value: string | string[] | undefined): number {
  if (value === undefined) return Number.POSITIVE_INFINITY;
  const timeout = /(?:^|[,;\s])timeout\s*=\s*(\d+)/i.exec(String(value));
  if (!timeout) return Number.POSITIVE_INFINITY;
  return Math.max(0, Number(timeout[1]) * 1_000 - KEEP_ALIVE_MARGIN_MS);
}

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { AbortedError } from '../../core/errors/aborted-error.js';
import { ListenError } from '../../core/errors/listen-error.js';
import { deadlineSignal } from '../../util/deadline-signal.js';
import { isLoopbackHost, loopbackNames, misdirectedMessage } from './loopback-hosts.js';
import { openAiErrorBody } from './openai-error-body.js';
import { RequestRejectedError } from './request-rejected-error.js';

/**
 * 16 MiB: a whole 128k-token context is about half a megabyte of text, or a megabyte of token ids as
 * JSON, so the longest real request (a long chat with tools) stays more than ten times under it, while
 * one request can never make a server hold more than this before it is refused.
 */
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;

/** Where a server listens: loopback unless told otherwise. */
export interface ListenOptions {
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
}

/** Serves one request; `signal` aborts when the client goes away or the server closes. */
export type RequestHandler = (request: IncomingMessage, response: ServerResponse, signal: AbortSignal) => Promise<void>;

/**
 * What every gymnast server shares: listening (loopback by default), on loopback answering only
 * loopback's own names (421 otherwise: no DNS rebinding), closing at once, a signal per request that
 * fires when its client leaves, and containment: a handler's error becomes a 400/413 (a
 * `RequestRejectedError`) or a 500 with its message, never a crash and never a stack.
 */
export class HttpServerCore {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #host: string;
  readonly #port: number;
  readonly #names: readonly string[] | undefined;
  /** Aborted on close: releases whatever waits inside a request. */
  readonly closing = new AbortController();

  constructor(handle: RequestHandler, options: ListenOptions = {}) {
    this.#host = options.host ?? '127.0.0.1';
    this.#port = options.port ?? 0;
    this.#names = loopbackNames(this.#host);
    // The handler's errors are answered in #contain; this catch is the last guard that keeps the process up.
    this.#server = createServer((request, response) => void this.#contain(handle, request, response).catch((error: unknown) => abandon(response, error)));
    this.#server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  /** Starts listening and returns the base URL; a `ListenError` names the address when it cannot (a port in use, …). */
  async start(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', (error) => reject(new ListenError({ host: this.#host, port: this.#port }, error)));
      this.#server.listen(this.#port, this.#host, () => resolve());
    });
    return this.url;
  }

  get url(): string {
    const { address, port } = this.#server.address() as AddressInfo;
    return `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  }

  /** Stops at once: waiting requests are released and open connections destroyed. */
  async close(): Promise<void> {
    this.closing.abort();
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #contain(handle: RequestHandler, request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (this.#names && !isLoopbackHost(request.headers.host, this.#names)) {
      sendJson(response, 421, openAiErrorBody(misdirectedMessage(request.headers.host, this.#names), { type: 'invalid_request_error' }));
      return;
    }
    const stop = requestSignal(response, this.closing.signal);
    try {
      await handle(request, response, stop);
    } catch (error) {
      if (stop.aborted) return; // the client left or the server is closing: no one to answer
      const status = error instanceof RequestRejectedError ? error.status : 500;
      // After a 413 the rest of the body is never read: closing the connection is the only way to stop it.
      sendJson(response, status, errorBody(error), status === 413 ? { connection: 'close' } : {});
    }
  }
}

/**
 * Aborts when the response closes unsent (the client went away: working on is wasted) or the server
 * closes; released once the response closes either way.
 */
function requestSignal(response: ServerResponse, closing: AbortSignal): AbortSignal {
  const deadline = deadlineSignal(closing, undefined);
  response.once('close', () => {
    if (!response.writableFinished) deadline.abort(new AbortedError('the client went away before its answer was sent'));
    deadline.dispose();
  });
  return deadline.signal;
}

/** Whatever escaped the handler: answer 500 if nothing was sent yet, else cut the connection. */
function abandon(response: ServerResponse, error: unknown): void {
  if (!response.headersSent && !response.destroyed) sendJson(response, 500, internalError(error));
  else response.destroy();
}

/** What a handler's error answers: a rejected request's own body, else the message only (a stack would show the server's insides to any client). */
export const errorBody = (error: unknown) => (error instanceof RequestRejectedError ? error.body : internalError(error));

const internalError = (error: unknown) => openAiErrorBody(error instanceof Error ? error.message : String(error), { type: 'server_error' });

/** Sends a JSON answer, unless one was already sent or the connection is gone. */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string | string[]> = {}): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  response.end(text);
}

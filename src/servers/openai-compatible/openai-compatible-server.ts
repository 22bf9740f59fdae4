import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { AbortedError } from '../../core/errors/aborted-error.js';
import type { ChatTemplate } from '../../tokens/chat-template.js';
import type { Tokenizer } from '../../tokens/tokenizer.js';
import { deadlineSignal } from '../../util/deadline-signal.js';
import type { Generator } from './generator.js';
import { readJsonBody } from './read-json-body.js';
import { RequestRejectedError } from './request-rejected-error.js';
import { routes, type RouteContext, type RouteResult } from './routes.js';

/**
 * 16 MiB: a whole 128k-token context is about half a megabyte of text, or a megabyte of token ids as
 * JSON, so the longest real request (a long chat with tools) stays more than ten times under it, while
 * one request can never make the server hold more than this before it is refused.
 */
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface OpenAiCompatibleServerOptions {
  tokenizer: Tokenizer;
  template: ChatTemplate;
  generate: Generator;
  /** Which server to imitate where vLLM and SGLang differ (where chat puts `prompt_token_ids`). */
  flavor?: 'vllm' | 'sglang';
  model?: string;
  maxModelLen?: number;
  /** Request bodies over this many bytes are refused with 413 (default `DEFAULT_MAX_BODY_BYTES`). */
  maxBodyBytes?: number;
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
 * `/v1/completions` (token prompts, `return_token_ids`), `/v1/chat/completions`, `/tokenize`,
 * `/detokenize`, SGLang `/generate`, `/health`. What samples the tokens is pluggable.
 */
export class OpenAiCompatibleServer {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #context: RouteContext;
  readonly #host: string;
  readonly #port: number;
  readonly #maxBodyBytes: number;
  /** Aborted on close: releases whatever waits inside a request. */
  protected readonly closing = new AbortController();

  constructor(options: OpenAiCompatibleServerOptions) {
    this.#context = {
      tokenizer: options.tokenizer,
      template: options.template,
      generate: options.generate,
      flavor: options.flavor ?? 'vllm',
      model: options.model ?? 'gymnast-test-model',
      maxModelLen: options.maxModelLen ?? 32_768,
    };
    this.#host = options.host ?? '127.0.0.1';
    this.#port = options.port ?? 0;
    this.#maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    // #handle answers every error itself; this catch is the last guard that keeps the process up.
    this.#server = createServer((request, response) => void this.#handle(request, response).catch((error: unknown) => abandon(response, error)));
    this.#server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  /** Starts listening and returns the base URL. */
  async start(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
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

  /**
   * A subclass may answer (or mistreat) a request itself; returns true when it did. `signal` aborts
   * when the client goes away or the server closes.
   */
  protected async intercept(_call: IncomingCall, _request: IncomingMessage, _response: ServerResponse, _signal: AbortSignal): Promise<boolean> {
    return false;
  }

  /** Sends a route's result; a subclass may send it differently (e.g. cut short). */
  protected respond(_request: IncomingMessage, response: ServerResponse, result: RouteResult): void {
    sendJson(response, result.status, result.body);
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const stop = requestSignal(response, this.closing.signal);
    try {
      await this.#serve(request, response, stop);
    } catch (error) {
      if (stop.aborted) return; // the client left or the server is closing: no one to answer
      if (error instanceof RequestRejectedError) {
        // After a 413 the rest of the body is never read: closing the connection is the only way to stop it.
        sendJson(response, error.status, error.body, error.status === 413 ? { connection: 'close' } : {});
      } else {
        sendJson(response, 500, internalError(error));
      }
    }
  }

  async #serve(request: IncomingMessage, response: ServerResponse, signal: AbortSignal): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const body = request.method === 'POST' ? await readJsonBody(request, this.#maxBodyBytes) : undefined;
    const session = request.headers['x-session-id'];
    const call: IncomingCall = {
      path,
      body,
      sessionId: Array.isArray(session) ? session[0] : session,
      ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}),
    };
    if (await this.intercept(call, request, response, signal)) return;
    const route = routes[`${request.method} ${path}`];
    if (!route) return sendJson(response, 404, { error: { message: `no route ${request.method} ${path}`, code: 404 } });
    const result = await routed(() => route(this.#context, body, signal));
    call.response = result;
    this.respond(request, response, result);
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

/**
 * Aborts when the response closes unsent (the client went away: generating on is wasted work) or
 * the server closes; released once the response closes either way.
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

/** The message only: a stack would show the server's insides to any client. */
const internalError = (error: unknown) => ({ error: { message: error instanceof Error ? error.message : String(error), code: 500 } });

/** Sends a JSON answer, unless one was already sent or the connection is gone. */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  response.end(text);
}

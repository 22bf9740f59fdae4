import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ChatTemplate } from '../../tokens/chat-template.js';
import type { Tokenizer } from '../../tokens/tokenizer.js';
import type { Generator } from './generator.js';
import { routes, type RouteContext, type RouteResult } from './routes.js';

export interface OpenAiCompatibleServerOptions {
  tokenizer: Tokenizer;
  template: ChatTemplate;
  generate: Generator;
  /** Which server to imitate where vLLM and SGLang differ (where chat puts `prompt_token_ids`). */
  flavor?: 'vllm' | 'sglang';
  model?: string;
  maxModelLen?: number;
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
    this.#server = createServer((request, response) => void this.#handle(request, response));
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

  /** A subclass may answer (or mistreat) a request itself; returns true when it did. */
  protected async intercept(_call: IncomingCall, _request: IncomingMessage, _response: ServerResponse): Promise<boolean> {
    return false;
  }

  /** Sends a route's result; a subclass may send it differently (e.g. cut short). */
  protected respond(_request: IncomingMessage, response: ServerResponse, result: RouteResult): void {
    sendJson(response, result.status, result.body);
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const body = request.method === 'POST' ? await readJson(request) : undefined;
    const session = request.headers['x-session-id'];
    const call: IncomingCall = {
      path,
      body,
      sessionId: Array.isArray(session) ? session[0] : session,
      ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}),
    };
    try {
      if (await this.intercept(call, request, response)) return;
      const route = routes[`${request.method} ${path}`];
      if (!route) return sendJson(response, 404, { error: { message: `no route ${request.method} ${path}`, code: 404 } });
      const result = await route(this.#context, body, this.closing.signal);
      call.response = result;
      this.respond(request, response, result);
    } catch (error) {
      if (!this.closing.signal.aborted) sendJson(response, 500, { error: { message: String(error), code: 500 } });
    }
  }
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  response.end(text);
}

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ChatTemplate } from '../../tokens/chat-template.js';
import type { Tokenizer } from '../../tokens/tokenizer.js';
import { abortableDelay } from '../../util/abortable-delay.js';
import { FaultQueue } from './faults.js';
import { routes, type RouteContext } from './routes.js';
import { seededWords, type Responder } from './seeded-generation.js';

export interface InferenceServerOptions {
  tokenizer: Tokenizer;
  template: ChatTemplate;
  /** Which server to imitate where vLLM and SGLang differ (where chat puts `prompt_token_ids`). */
  flavor?: 'vllm' | 'sglang';
  model?: string;
  maxModelLen?: number;
  /** What the model says; the default is seeded words. */
  respond?: Responder;
  port?: number;
}

/** One request as the server saw it. */
export interface RecordedRequest {
  path: string;
  body: unknown;
  sessionId: string | undefined;
  /** The status and body sent back (absent when a fault cut the request off). */
  response?: { status: number; body: unknown };
}

/**
 * An OpenAI-compatible inference server for tests and demos: vLLM's and SGLang's token fields and
 * quirks, a real tokenizer and chat template, deterministic seeded replies, and faults on demand.
 * Binds to loopback only.
 */
export class InferenceServer {
  readonly faults = new FaultQueue();
  readonly requests: RecordedRequest[] = [];
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #closing = new AbortController();
  readonly #context: RouteContext;
  readonly #port: number;

  constructor(options: InferenceServerOptions) {
    this.#context = {
      tokenizer: options.tokenizer,
      template: options.template,
      flavor: options.flavor ?? 'vllm',
      model: options.model ?? 'gymnast-test-model',
      maxModelLen: options.maxModelLen ?? 32_768,
      respond: options.respond ?? seededWords,
    };
    this.#port = options.port ?? 0;
    this.#server = createServer((request, response) => void this.#handle(request, response));
    this.#server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  /** Starts listening on 127.0.0.1 and returns the base URL (`http://127.0.0.1:PORT`). */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(this.#port, '127.0.0.1', resolve));
    return this.url;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Stops at once: hanging requests are released and open connections destroyed (a server that dies). */
  async close(): Promise<void> {
    this.#closing.abort();
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const body = request.method === 'POST' ? await readJson(request) : undefined;
    const session = request.headers['x-session-id'];
    const recorded: RecordedRequest = { path, body, sessionId: Array.isArray(session) ? session[0] : session };
    this.requests.push(recorded);
    const fault = this.faults.next();
    try {
      if (fault?.kind === 'latency') await abortableDelay(fault.ms, this.#closing.signal);
      if (fault?.kind === 'hang') return await new Promise<void>((resolve) => this.#closing.signal.addEventListener('abort', () => resolve()));
      if (fault?.kind === 'reset') return void request.socket.destroy();
      if (fault?.kind === 'status') {
        const headers: Record<string, string> = fault.retryAfterSeconds === undefined ? {} : { 'retry-after': String(fault.retryAfterSeconds) };
        return send(response, fault.status, { error: { message: fault.message ?? `injected ${fault.status}`, code: fault.status } }, headers);
      }
      const route = routes[`${request.method} ${path}`];
      if (!route) return send(response, 404, { error: { message: `no route ${request.method} ${path}`, code: 404 } });
      const result = route(this.#context, body);
      recorded.response = result;
      if (fault?.kind === 'truncate') {
        const text = JSON.stringify(result.body);
        response.writeHead(result.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        response.write(text.slice(0, Math.floor(text.length / 2)));
        return void setImmediate(() => request.socket.destroy());
      }
      send(response, result.status, result.body);
    } catch (error) {
      if (!this.#closing.signal.aborted) send(response, 500, { error: { message: String(error), code: 500 } });
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

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  response.end(text);
}

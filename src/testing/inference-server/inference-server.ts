import type { IncomingMessage, ServerResponse } from 'node:http';
import { OpenAiCompatibleServer, sendJson, type IncomingCall, type OpenAiCompatibleServerOptions } from '../../servers/openai-compatible/openai-compatible-server.js';
import type { RouteResult } from '../../servers/openai-compatible/routes.js';
import { abortableDelay } from '../../util/abortable-delay.js';
import { FaultQueue } from './faults.js';
import { seededGenerator, seededWords, type Responder } from './seeded-generation.js';

export interface InferenceServerOptions extends Omit<OpenAiCompatibleServerOptions, 'generate' | 'host'> {
  /** What the model says; the default is seeded words. */
  respond?: Responder;
}

/** One request as the server saw it. */
export type RecordedRequest = IncomingCall;

/**
 * The OpenAI-compatible server for tests and demos: deterministic seeded replies, every request
 * recorded, and faults on demand (latency, status codes with Retry-After, resets, hangs, truncated
 * bodies). Binds to loopback only.
 */
export class InferenceServer extends OpenAiCompatibleServer {
  readonly faults = new FaultQueue();
  readonly requests: RecordedRequest[] = [];
  readonly #truncated = new WeakSet<IncomingMessage>();

  constructor(options: InferenceServerOptions) {
    super({ ...options, host: '127.0.0.1', generate: seededGenerator(options.tokenizer, options.respond ?? seededWords) });
  }

  protected override async intercept(call: IncomingCall, request: IncomingMessage, response: ServerResponse): Promise<boolean> {
    this.requests.push(call);
    const fault = this.faults.next();
    switch (fault?.kind) {
      case 'latency':
        await abortableDelay(fault.ms, this.closing.signal);
        return false;
      case 'hang':
        await new Promise<void>((resolve) => this.closing.signal.addEventListener('abort', () => resolve()));
        return true;
      case 'reset':
        request.socket.destroy();
        return true;
      case 'status':
        sendJson(response, fault.status, { error: { message: fault.message ?? `injected ${fault.status}`, code: fault.status } }, fault.retryAfterSeconds === undefined ? {} : { 'retry-after': String(fault.retryAfterSeconds) });
        return true;
      case 'truncate':
        this.#truncated.add(request);
        return false;
      default:
        return false;
    }
  }

  protected override respond(request: IncomingMessage, response: ServerResponse, result: RouteResult): void {
    if (!this.#truncated.has(request)) return super.respond(request, response, result);
    const text = JSON.stringify(result.body);
    response.writeHead(result.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    response.write(text.slice(0, Math.floor(text.length / 2)));
    setImmediate(() => request.socket.destroy());
  }
}

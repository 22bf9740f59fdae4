import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_MAX_BODY_BYTES, HttpServerCore, sendJson, type ListenOptions } from '../http-server/http-server-core.js';
import { openAiErrorBody } from '../http-server/openai-error-body.js';
import { readIncomingCall } from '../openai-compatible/incoming-call.js';
import type { OpenAiCompatibleApi } from '../openai-compatible/openai-compatible-api.js';
import { sendNoRoute, sendRouteResult } from '../openai-compatible/send-route-result.js';
import { replicaReport } from './replica-report.js';
import type { SimClock } from './sim-clock.js';
import type { PauseMode, SimEngine } from './sim-engine.js';
import { vllmMetrics } from './vllm-metrics.js';

export interface SimReplicaServerOptions extends ListenOptions {
  engine: SimEngine;
  clock: SimClock;
  /** The OpenAI-compatible API over the engine's generator: the routes `serve model` serves. */
  api: OpenAiCompatibleApi;
  /** The served model's name, on every metric. */
  modelName: string;
}

type ControlRoute = (url: URL) => { status: number; body: unknown } | Promise<{ status: number; body: unknown }>;

/**
 * One simulated replica over HTTP: the OpenAI-compatible API (the same routes and code `serve model`
 * serves), vLLM's `/metrics`, `/pause`, `/resume` and `/is_paused`, and the simulator's own controls:
 * `POST /sim/fail` (the replica crashes: open connections are cut, requests refused with 503 until
 * `POST /sim/recover`) and `GET /sim/stats` (its account as JSON).
 */
export class SimReplicaServer {
  readonly #core: HttpServerCore;
  readonly #engine: SimEngine;
  readonly #options: SimReplicaServerOptions;
  /** Responses still being served by the model routes: what a crash cuts. */
  readonly #open = new Set<ServerResponse>();
  readonly #controls: Record<string, ControlRoute>;

  constructor(options: SimReplicaServerOptions) {
    this.#options = options;
    this.#engine = options.engine;
    this.#core = new HttpServerCore((request, response, signal) => this.#serve(request, response, signal), {
      ...(options.host === undefined ? {} : { host: options.host }),
      ...(options.port === undefined ? {} : { port: options.port }),
    });
    this.#controls = {
      'POST /sim/fail': () => {
        this.fail();
        return { status: 200, body: { status: 'down' } };
      },
      'POST /sim/recover': () => {
        this.#engine.recover();
        return { status: 200, body: { status: 'serving' } };
      },
      'GET /sim/stats': () => ({ status: 200, body: replicaReport(this.#engine, this.#options.clock.now()) }),
    };
  }

  start(): Promise<string> {
    return this.#core.start();
  }

  get url(): string {
    return this.#core.url;
  }

  close(): Promise<void> {
    return this.#core.close();
  }

  /** The replica crashes: its engine loses every request and its cache, and every open connection is cut. */
  fail(): void {
    this.#engine.fail();
    for (const response of this.#open) response.socket?.destroy();
    this.#open.clear();
  }

  async #serve(request: IncomingMessage, response: ServerResponse, signal: AbortSignal): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const key = `${request.method} ${url.pathname}`;
    const control = this.#controls[key];
    if (control) return this.#answer(response, await control(url));
    if (this.#engine.state === 'down')
      return sendJson(response, 503, openAiErrorBody(`simulated replica ${this.#engine.replica} is down`, { type: 'server_error' }));
    if (key === 'GET /metrics') return sendText(response, vllmMetrics(this.#engine, this.#options.modelName));
    if (key === 'POST /pause') return this.#answer(response, await this.#pause(url));
    if (key === 'POST /resume') {
      this.#engine.resume();
      return this.#answer(response, { status: 200, body: { status: 'resumed' } });
    }
    if (key === 'GET /is_paused')
      return this.#answer(response, { status: 200, body: { is_paused: this.#engine.state === 'paused' || this.#engine.state === 'draining' } });
    this.#open.add(response);
    response.once('close', () => this.#open.delete(response));
    const call = await readIncomingCall(request, response, { apiKey: undefined, maxBodyBytes: DEFAULT_MAX_BODY_BYTES });
    if (!call) return;
    const route = this.#options.api.route(request.method, call.path);
    if (!route) return sendNoRoute(response, request.method, call.path);
    await sendRouteResult(response, await route(call.body, signal));
  }

  /** vLLM's `POST /pause?mode=…&clear_cache=…`: `keep` (the default here) or `wait`; `abort` is not simulated. */
  async #pause(url: URL): Promise<{ status: number; body: unknown }> {
    const mode = url.searchParams.get('mode') ?? 'keep';
    const clearCache = url.searchParams.get('clear_cache') ?? 'true';
    if (mode !== 'keep' && mode !== 'wait')
      return {
        status: 400,
        body: openAiErrorBody(`mode=${mode} is not simulated: use keep (freeze requests in place) or wait (let them finish first)`, {
          type: 'invalid_request_error',
          param: 'mode',
        }),
      };
    if (clearCache !== 'true' && clearCache !== 'false')
      return {
        status: 400,
        body: openAiErrorBody(`clear_cache must be true or false, got ${clearCache}`, { type: 'invalid_request_error', param: 'clear_cache' }),
      };
    await this.#engine.pause(mode as PauseMode, clearCache === 'true');
    return { status: 200, body: { status: 'paused' } };
  }

  #answer(response: ServerResponse, { status, body }: { status: number; body: unknown }): void {
    sendJson(response, status, body);
  }
}

/** Prometheus text, with the content type Prometheus scrapers expect. */
function sendText(response: ServerResponse, text: string): void {
  response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

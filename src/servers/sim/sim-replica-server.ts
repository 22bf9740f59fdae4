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

/** A replica's answer to one call: JSON (`body`), or text (`text`: its Prometheus metrics). */
export interface SimAnswer {
  status: number;
  body?: unknown;
  text?: string;
}

type ControlRoute = (url: URL) => SimAnswer | Promise<SimAnswer>;

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
  /** Rejects the in-process calls being answered (see `answer`): what a crash does to them. */
  readonly #cuts = new Set<(reason: Error) => void>();

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
    for (const cut of this.#cuts) cut(new Error(`the connection to simulated replica ${this.#engine.replica} was reset (it failed)`));
    this.#cuts.clear();
  }

  /**
   * One call answered in this process, without a socket, as the HTTP server would answer it: for
   * clients on a `VirtualClock`, which is exact only while nothing waits on the network. A streamed
   * answer is refused (`stream: true` needs the HTTP server). A crash (`fail`) rejects the calls it
   * cuts, as a connection reset does.
   */
  async answer(call: { method: string; path: string; body?: unknown }, signal: AbortSignal): Promise<SimAnswer> {
    const url = new URL(call.path, 'http://localhost');
    const own = await this.#own(`${call.method} ${url.pathname}`, url);
    if (own) return own;
    const route = this.#options.api.route(call.method, url.pathname);
    if (!route) return { status: 404, body: openAiErrorBody(`no route ${call.method} ${url.pathname}`, { type: 'not_found_error' }) };
    let cut!: (reason: Error) => void;
    const cutting = new Promise<never>((_, reject) => (cut = reject));
    this.#cuts.add(cut);
    try {
      const result = await Promise.race([route(call.body, signal), cutting]);
      if (result.events) throw new RangeError('a streamed answer needs the HTTP server: answer() gives whole answers only');
      return { status: result.status, body: result.body };
    } finally {
      this.#cuts.delete(cut);
    }
  }

  async #serve(request: IncomingMessage, response: ServerResponse, signal: AbortSignal): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const own = await this.#own(`${request.method} ${url.pathname}`, url);
    if (own?.text !== undefined) return sendText(response, own.text);
    if (own) return sendJson(response, own.status, own.body);
    this.#open.add(response);
    response.once('close', () => this.#open.delete(response));
    const call = await readIncomingCall(request, response, { apiKey: undefined, maxBodyBytes: DEFAULT_MAX_BODY_BYTES });
    if (!call) return;
    const route = this.#options.api.route(request.method, call.path);
    if (!route) return sendNoRoute(response, request.method, call.path);
    await sendRouteResult(response, await route(call.body, signal));
  }

  /** The answer to a call the replica answers itself (controls, metrics, pause), or to any call while it is down; undefined for the model's routes. */
  async #own(key: string, url: URL): Promise<SimAnswer | undefined> {
    const control = this.#controls[key];
    if (control) return control(url);
    if (this.#engine.state === 'down')
      return { status: 503, body: openAiErrorBody(`simulated replica ${this.#engine.replica} is down`, { type: 'server_error' }) };
    if (key === 'GET /metrics') return { status: 200, text: vllmMetrics(this.#engine, this.#options.modelName) };
    if (key === 'POST /pause') return this.#pause(url);
    if (key === 'POST /resume') {
      this.#engine.resume();
      return { status: 200, body: { status: 'resumed' } };
    }
    if (key === 'GET /is_paused') return { status: 200, body: { is_paused: this.#engine.state === 'paused' || this.#engine.state === 'draining' } };
    return undefined;
  }

  /** vLLM's `POST /pause?mode=…&clear_cache=…`: `keep` (the default here) or `wait`; `abort` is not simulated. */
  async #pause(url: URL): Promise<SimAnswer> {
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
}

/** Prometheus text, with the content type Prometheus scrapers expect. */
function sendText(response: ServerResponse, text: string): void {
  response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

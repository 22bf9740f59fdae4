import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { BadQueryError } from '../../viewer/rollout-query.js';
import type { TokenDecoder } from '../../core/token-decoder.js';
import { UnsafeFileError } from '../../core/errors/unsafe-file-error.js';
import { HttpServerCore, sendJson, type ListenOptions } from '../http-server/http-server-core.js';
import { answerApi, type ServedRun } from './viewer-api.js';
import type { ViewedRun } from './run-files.js';
import { servedRuns } from './served-runs.js';
import { staticFile } from './static-files.js';
import { ViewerGate, type GateAnswer } from './viewer-gate.js';

/** The browser front-end, shipped in the package (not `.pathname`: it keeps a space as `%20`). */
export const viewerAssetsDirectory = fileURLToPath(new URL('../../../assets/viewer/', import.meta.url));

export interface ViewerServerOptions extends ListenOptions {
  runs: readonly ViewedRun[];
  /** Where the front-end files are (default: the package's `assets/viewer/`). */
  assetsDirectory?: string;
  /** Decodes every run's tokens (`--tokenizer DIR`); without it, runs of the embedded model use its tokenizer (but for rows an agent server sampled) and others show ids only. */
  tokenizer?: TokenDecoder;
  /** How often the files are checked for new lines (default 500 ms). */
  followIntervalMs?: number;
  /** How long one rollouts request may scan lines for a text search (default 2 s). */
  searchBudgetMs?: number;
  /** When set, every request must carry it: `Authorization: Bearer`, or the cookie `?key=` trades it for (`ViewerGate`). */
  apiKey?: string;
}

/**
 * `gymnast view`: the viewer's JSON API under `/api/` and the front-end files everywhere else, on the
 * shared hardened core (loopback by default, contained errors), behind a gate (loopback names only,
 * and the API key when there is one). Not a `JsonServer`: that one answers JSON only, and the
 * front-end is HTML, scripts and styles.
 */
export class ViewerServer {
  readonly #core: HttpServerCore;
  readonly #runs: ReadonlyMap<string, ServedRun>;
  readonly #assets: string;
  readonly #options: ViewerServerOptions;
  /** Made at the first request: it needs the port the server got. */
  #gate: ViewerGate | undefined;

  private constructor(runs: ReadonlyMap<string, ServedRun>, options: ViewerServerOptions) {
    this.#runs = runs;
    this.#assets = options.assetsDirectory ?? viewerAssetsDirectory;
    this.#options = options;
    this.#core = new HttpServerCore((request, response) => this.#serve(request, response), options);
  }

  /**
   * Starts indexing every run (one streaming pass each, then following their files) without waiting
   * for it: `start()` listens at once and the API serves each index as it grows, with its progress
   * (`indexing`), so a 1 GB run shows something in a moment rather than after its whole pass.
   */
  static async open(options: ViewerServerOptions): Promise<ViewerServer> {
    const runs = servedRuns(options.runs, options);
    for (const { index } of runs.values()) {
      // A failed first pass is retried by the follow timer, as any failed refresh is.
      void index.refresh().catch(() => undefined);
      index.follow(options.followIntervalMs);
    }
    return new ViewerServer(runs, options);
  }

  /** Resolves once every run's first pass is done (what a caller that wants whole counts waits for). */
  async indexed(): Promise<void> {
    await Promise.all([...this.#runs.values()].map((served) => served.index.refresh()));
  }

  start(): Promise<string> {
    return this.#core.start();
  }

  get url(): string {
    return this.#core.url;
  }

  async close(): Promise<void> {
    for (const served of this.#runs.values()) served.index.close();
    await this.#core.close();
  }

  async #serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const raw = request.url ?? '/';
    const url = new URL(raw, 'http://localhost');
    this.#gate ??= new ViewerGate({ port: Number(new URL(this.#core.url).port), apiKey: this.#options.apiKey });
    const stopped = this.#gate.stop(request, url);
    if (stopped) return sendGateAnswer(response, stopped);
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return sendJson(response, 405, { error: { message: `the viewer only answers GET, not ${request.method}` } }, { allow: 'GET, HEAD' });
    if (url.pathname.startsWith('/api/')) return this.#api(response, url);
    // The raw path, not the URL's: `new URL` folds `/a/../b` into `/b`, and a climbing path is refused, not reinterpreted.
    const answer = await staticFile(this.#assets, raw.split('?')[0]!);
    if (answer.status !== 200) return sendJson(response, answer.status, { error: { message: answer.message } });
    response.writeHead(200, { 'content-type': answer.contentType, 'content-length': answer.body.length, 'cache-control': 'no-cache' });
    response.end(request.method === 'HEAD' ? undefined : answer.body);
  }

  async #api(response: ServerResponse, url: URL): Promise<void> {
    let segments: string[];
    try {
      segments = url.pathname
        .slice('/api/'.length)
        .split('/')
        .filter((segment) => segment !== '')
        .map(decodeURIComponent);
    } catch {
      return sendJson(response, 400, { error: { message: `bad path ${url.pathname}` } });
    }
    try {
      const reply = await answerApi(this.#runs, segments, url.searchParams);
      sendJson(response, reply.status, reply.body);
    } catch (error) {
      // A run's file found to be a link (or no regular file) is named, never followed.
      if (error instanceof UnsafeFileError) return sendJson(response, 403, { error: { message: error.message, kind: error.kind } });
      if (!(error instanceof BadQueryError)) throw error;
      sendJson(response, 400, { error: { message: error.message, parameter: error.parameter } });
    }
  }
}

function sendGateAnswer(response: ServerResponse, answer: GateAnswer): void {
  if (answer.body) {
    sendJson(response, answer.status, answer.body, answer.headers);
    return;
  }
  response.writeHead(answer.status, answer.headers);
  response.end();
}

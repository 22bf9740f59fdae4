import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { hasBearerToken, UNAUTHORIZED } from './bearer-token.js';
import { DEFAULT_MAX_BODY_BYTES, HttpServerCore, sendJson, type ListenOptions } from './http-server-core.js';
import { openAiErrorBody } from './openai-error-body.js';
import { readJsonBody } from './read-json-body.js';

/** One request as a JSON route sees it. */
export interface JsonRequest {
  method: string;
  path: string;
  /** The parsed JSON body; undefined for an empty one (and for GET). */
  body: unknown;
  headers: IncomingHttpHeaders;
  /** Cookies the client sent, by name. */
  cookies: Readonly<Record<string, string>>;
  /** Aborts when the client goes away or the server closes. */
  signal: AbortSignal;
}

/** A route's answer; `headers` may set cookies (`set-cookie`). */
export interface JsonReply {
  status: number;
  body: unknown;
  headers?: Record<string, string | string[]>;
}

export type JsonRoute = (request: JsonRequest) => JsonReply | Promise<JsonReply>;

export interface JsonServerOptions extends ListenOptions {
  /** Routes by `"METHOD /path"`. */
  routes: Readonly<Record<string, JsonRoute>>;
  /** Asked for a request no route matches (e.g. NeMo Gym's `POST /<tool_name>`); undefined means 404. */
  fallback?: (method: string, path: string) => JsonRoute | undefined;
  /** Request bodies over this many bytes are refused with 413 (default 16 MiB). */
  maxBodyBytes?: number;
  /** When set, every request must carry `Authorization: Bearer <apiKey>` (401 otherwise). */
  apiKey?: string;
}

/**
 * A JSON-over-HTTP server on the shared hardened core (body limit, contained errors, a signal per
 * request): the shape of NeMo Gym's resources, agent and head servers.
 */
export class JsonServer {
  readonly #core: HttpServerCore;
  readonly #options: JsonServerOptions;

  constructor(options: JsonServerOptions) {
    this.#options = options;
    this.#core = new HttpServerCore((request, response, signal) => this.#serve(request, response, signal), options);
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

  async #serve(request: IncomingMessage, response: ServerResponse, signal: AbortSignal): Promise<void> {
    const method = request.method ?? 'GET';
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (!hasBearerToken(request.headers.authorization, this.#options.apiKey))
      return sendJson(response, UNAUTHORIZED.status, UNAUTHORIZED.body, UNAUTHORIZED.headers);
    const route = this.#options.routes[`${method} ${path}`] ?? this.#options.fallback?.(method, path);
    if (!route) return sendJson(response, 404, openAiErrorBody(`no route ${method} ${path}`, { type: 'not_found_error' }));
    const body = method === 'POST' ? await readJsonBody(request, this.#options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES) : undefined;
    const reply = await route({ method, path, body, headers: request.headers, cookies: parseCookies(request.headers.cookie), signal });
    sendJson(response, reply.status, reply.body, reply.headers);
  }
}

/** `a=1; b=2` → {a: '1', b: '2'}; values are URI-decoded where they can be. */
export function parseCookies(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const equals = part.indexOf('=');
    if (equals <= 0) continue;
    const name = part.slice(0, equals).trim();
    const value = part.slice(equals + 1).trim();
    cookies[name] = safeDecode(value);
  }
  return cookies;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { hasBearerToken, isSecret } from '../http-server/bearer-token.js';

/** The answer to a request the gate stops (or to a key traded for a cookie), sent as it is. */
export interface GateAnswer {
  status: number;
  headers: Record<string, string>;
  body?: { error: { message: string } };
}

export interface ViewerGateOptions {
  /** The port the server listens on, which names its cookie. */
  port: number;
  apiKey?: string | undefined;
}

/**
 * Who may read the viewer (the server core has already refused names other than loopback's when bound
 * to it: no DNS rebinding). With an API key, only requests that carry it: as `Authorization: Bearer` (scripts),
 * or as the cookie a browser gets by opening the address once with `?key=` (a browser sends no
 * header of its own when it navigates). The cookie holds a random token of this server's run, not
 * the key; HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), and named
 * by the port, since a host's cookies are shared by all its ports.
 */
export class ViewerGate {
  readonly #apiKey: string | undefined;
  readonly #cookie: string;
  readonly #session = randomBytes(32).toString('base64url');

  constructor(options: ViewerGateOptions) {
    this.#apiKey = options.apiKey;
    this.#cookie = `gymnast_view_${options.port}`;
  }

  /** What to answer instead of serving `request`, or undefined to serve it. */
  stop(request: IncomingMessage, url: URL): GateAnswer | undefined {
    if (this.#apiKey === undefined) return undefined;
    if (url.searchParams.has('key')) return this.#trade(url, this.#apiKey);
    if (hasBearerToken(request.headers.authorization, this.#apiKey) || isSecret(cookieValue(request.headers.cookie, this.#cookie), this.#session))
      return undefined;
    return unauthorized('this viewer needs its key: open the address gymnast view printed (it ends in ?key=…), or send Authorization: Bearer <key>');
  }

  /** The key in the address: the cookie for it, and the same address without the key (out of the address bar and history). */
  #trade(url: URL, apiKey: string): GateAnswer {
    if (!isSecret(url.searchParams.get('key') ?? undefined, apiKey)) return unauthorized('wrong key in ?key=: open the address gymnast view printed');
    const rest = new URLSearchParams(url.searchParams);
    rest.delete('key');
    const query = rest.toString();
    const location = query === '' ? url.pathname : `${url.pathname}?${query}`;
    return { status: 303, headers: { location, 'set-cookie': `${this.#cookie}=${this.#session}; HttpOnly; SameSite=Strict; Path=/` } };
  }
}

function unauthorized(message: string): GateAnswer {
  return { status: 401, headers: { 'www-authenticate': 'Bearer' }, body: { error: { message } } };
}

/** The value of cookie `name` in a `Cookie` header. */
function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const [key, ...value] = pair.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

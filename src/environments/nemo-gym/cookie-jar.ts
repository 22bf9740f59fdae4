// Hand-rolled twin of undici's parseCookie (and of tough-cookie's CookieJar, for the one site an episode
// talks to): name=value, and deletion by Max-Age or Expires. Measured reason (bench/cookie-jar-bench.ts):
// this module loads in ~10 ms, undici's public entry in ~128 ms (its private cookies/parse.js 21-35 ms,
// tough-cookie 6.0.0 57-150 ms in a scratch install), for a few headers an episode (undici parses one
// in 1.2 µs, this in 2.5). Guard: test/environments/nemo-gym-servers.test.ts, "keeps cookies as a
// browser does: set, replaced, deleted when expired".

/** A session's cookies by name, as a browser keeps them for one site: JSON, so it lives in episode metadata. */
export type Cookies = Readonly<Record<string, string>>;

/**
 * The cookies after a response: each `Set-Cookie` sets its cookie, or deletes it when it has expired
 * (`Max-Age=0`, a past `Expires`: how a server ends a session). Attributes (path, flags) are not kept:
 * every call of an episode goes to the same server. NeMo Gym's session cookie is
 * `<ClassName>___<server name>`, but any cookie a server sets is kept, as a browser would.
 */
export function withSetCookies(cookies: Cookies, header: string | string[] | undefined, now: number = Date.now()): Cookies {
  if (header === undefined) return cookies;
  const next: Record<string, string> = { ...cookies };
  for (const line of Array.isArray(header) ? header : [header]) {
    const [pair = '', ...attributes] = line.split(';');
    const equals = pair.indexOf('=');
    if (equals <= 0) continue;
    const name = pair.slice(0, equals).trim();
    if (expired(attributes, now)) delete next[name];
    else next[name] = pair.slice(equals + 1).trim();
  }
  return next;
}

function expired(attributes: readonly string[], now: number): boolean {
  for (const attribute of attributes) {
    const [key = '', value = ''] = attribute.split('=', 2).map((part) => part.trim());
    if (key.toLowerCase() === 'max-age' && Number(value) <= 0) return true;
    if (key.toLowerCase() === 'expires' && Date.parse(value) <= now) return true;
  }
  return false;
}

/** The `Cookie` request header for a session, or no header when it has no cookies. */
export function cookieHeaders(cookies: Cookies): Record<string, string> {
  const pairs = Object.entries(cookies).map(([name, value]) => `${name}=${value}`);
  return pairs.length === 0 ? {} : { cookie: pairs.join('; ') };
}

/**
 * An episode's metadata without its session cookies, for the record: a cookie is the server's
 * credential for that session, so it stays in memory between steps and never reaches output rows.
 */
export function withoutCookies<T extends { cookies: unknown }>(metadata: T): Omit<T, 'cookies'> {
  const { cookies: _cookies, ...recorded } = metadata;
  return recorded;
}

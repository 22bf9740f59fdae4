import type { JsonReply, JsonRequest, JsonRoute } from '../http-server/json-server.js';
import type { ResourcesSession, SessionStore } from './session-store.js';

/** Starlette's SessionMiddleware defaults: two weeks, the whole site, not readable from scripts. */
const COOKIE_ATTRIBUTES = 'path=/; Max-Age=1209600; httponly; samesite=lax';

/** NeMo Gym's session cookie name: `"<ClassName>___<server name>"`. */
export function sessionCookieName(className: string, serverName: string): string {
  return `${className}___${serverName}`;
}

export type SessionHandler<State> = (request: JsonRequest, session: ResourcesSession<State>) => JsonReply | Promise<JsonReply>;

/**
 * A route that sees the request's session, as every NeMo Gym endpoint does through its middleware:
 * a request without a known session gets a new one, and its reply sets the cookie.
 */
export function withSession<State>(store: SessionStore<State>, cookieName: string, handler: SessionHandler<State>): JsonRoute {
  return async (request) => {
    const { session, created } = store.open(request.cookies[cookieName]);
    const reply = await handler(request, session);
    if (!created) return reply;
    return { ...reply, headers: { ...reply.headers, 'set-cookie': `${cookieName}=${session.id}; ${COOKIE_ATTRIBUTES}` } };
  };
}

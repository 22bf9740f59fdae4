import type { IncomingMessage, ServerResponse } from 'node:http';
import { hasBearerToken, UNAUTHORIZED } from '../http-server/bearer-token.js';
import { sendJson } from '../http-server/http-server-core.js';
import { readJsonBody } from '../http-server/read-json-body.js';
import type { RouteResult } from './route.js';

/** One request as the server saw it. */
export interface IncomingCall {
  path: string;
  body: unknown;
  sessionId: string | undefined;
  /** The `Authorization` header, when the client sent one. */
  authorization?: string;
  /** The status and body sent back (absent when the request was cut off). */
  response?: RouteResult;
}

/** What a request must bring to be read. */
export interface CallAccess {
  /** When set, every request but `/health` must carry `Authorization: Bearer <apiKey>`. */
  apiKey: string | undefined;
  /** Bodies over this many bytes are refused with 413. */
  maxBodyBytes: number;
}

/**
 * The request as a call: its path, JSON body (POST only) and session. A request without the API key is
 * answered 401 here and gives no call: vLLM leaves `/health` open to load balancers' probes, and every
 * other route needs the token.
 */
export async function readIncomingCall(request: IncomingMessage, response: ServerResponse, access: CallAccess): Promise<IncomingCall | undefined> {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  if (path !== '/health' && !hasBearerToken(request.headers.authorization, access.apiKey)) {
    sendJson(response, UNAUTHORIZED.status, UNAUTHORIZED.body, UNAUTHORIZED.headers);
    return undefined;
  }
  const body = request.method === 'POST' ? await readJsonBody(request, access.maxBodyBytes) : undefined;
  const session = request.headers['x-session-id'];
  return {
    path,
    body,
    sessionId: Array.isArray(session) ? session[0] : session,
    ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}),
  };
}

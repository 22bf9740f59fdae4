import type { ServerResponse } from 'node:http';
import { sendJson } from '../http-server/http-server-core.js';
import { openAiErrorBody } from '../http-server/openai-error-body.js';
import { sendEventStream } from '../http-server/send-event-stream.js';
import type { RouteResult } from './route.js';

/** Sends a route's result: a stream of events when the client asked for one, else its JSON. */
export function sendRouteResult(response: ServerResponse, result: RouteResult): void | Promise<void> {
  if (result.events) return sendEventStream(response, result.events, result.framing);
  sendJson(response, result.status, result.body);
}

/** The 404 for a method and path no route serves. */
export function sendNoRoute(response: ServerResponse, method: string | undefined, path: string): void {
  sendJson(response, 404, openAiErrorBody(`no route ${method} ${path}`, { type: 'not_found_error' }));
}

import type { z } from 'zod';
import { PolicyError } from '../core/errors/policy-error.js';
import { ServerError } from '../core/errors/server-error.js';
import { TransportError } from '../core/errors/transport-error.js';
import { redactUrls } from '../util/redact-urls.js';
import type { HttpReply } from './http-reply.js';

/**
 * How `JsonClient.request` reads an answer: `schema` says what a successful one must look like;
 * `read` is a hand check of its usual shape that returns what `schema` would, or undefined to let
 * `schema` read it (and name what is wrong).
 */
export interface JsonReading<T> {
  schema: z.ZodType<T>;
  read?: ((value: unknown) => T | undefined) | undefined;
}

/** The answer's body read as `schema` says; a status of 400 or more is a `ServerError`, a body that is not JSON a `TransportError`. */
export function readJsonReply<T>(url: string, reply: HttpReply, { schema, read }: JsonReading<T>): T {
  if (reply.status >= 400) {
    throw new ServerError(url, reply.status, errorMessage(reply.text), retryAfterMs(reply.headers['retry-after']));
  }
  let value: unknown;
  try {
    value = JSON.parse(reply.text);
  } catch {
    throw new TransportError(url, `the response body is not complete JSON (${reply.text.length} bytes)`);
  }
  const plain = read?.(value);
  if (plain !== undefined) return plain;
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`).join('; ');
    throw new PolicyError(`${redactUrls(url)}: unexpected response: ${issues}`);
  }
  return parsed.data;
}

/** OpenAI-style `{error: {message}}`, vLLM's `{message}`, or the raw text. */
function errorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: string } | string; message?: string };
    if (typeof body.error === 'string') return body.error;
    return body.error?.message ?? body.message ?? text;
  } catch {
    return text.slice(0, 500);
  }
}

function retryAfterMs(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

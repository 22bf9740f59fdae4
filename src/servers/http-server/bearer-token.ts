import { timingSafeEqual } from 'node:crypto';
import { openAiErrorBody } from './openai-error-body.js';

/**
 * Whether an `Authorization` header carries the server's bearer token (always, when the server has
 * none). Compared in constant time, so the token cannot be guessed byte by byte from response times.
 */
export function hasBearerToken(header: string | undefined, apiKey: string | undefined): boolean {
  if (apiKey === undefined) return true;
  return isSecret(header, `Bearer ${apiKey}`);
}

/** Whether `given` is `secret`, compared in constant time (only the length shows). */
export function isSecret(given: string | undefined, secret: string): boolean {
  const expected = Buffer.from(secret);
  const actual = Buffer.from(given ?? '');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** The 401 every gymnast server answers a request without its token. */
export const UNAUTHORIZED = {
  status: 401,
  body: openAiErrorBody('missing or wrong bearer token', { type: 'authentication_error', code: 'invalid_api_key' }),
  headers: { 'www-authenticate': 'Bearer' },
} as const;

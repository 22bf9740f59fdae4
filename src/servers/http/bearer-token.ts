import { timingSafeEqual } from 'node:crypto';
import { openAiErrorBody } from './openai-error-body.js';

/**
 * Whether an `Authorization` header carries the server's bearer token (always, when the server has
 * none). Compared in constant time, so the token cannot be guessed byte by byte from response times.
 */
export function hasBearerToken(header: string | undefined, apiKey: string | undefined): boolean {
  if (apiKey === undefined) return true;
  const expected = Buffer.from(`Bearer ${apiKey}`);
  const given = Buffer.from(header ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The 401 every gymnast server answers a request without its token. */
export const UNAUTHORIZED = { status: 401, body: openAiErrorBody('missing or wrong bearer token', { type: 'authentication_error', code: 'invalid_api_key' }), headers: { 'www-authenticate': 'Bearer' } } as const;

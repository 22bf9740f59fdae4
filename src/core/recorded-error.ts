import { z } from 'zod';
import { redactUrls } from '../util/redact-urls.js';
import { GymnastError } from './errors/gymnast-error.js';

/** An error as data, so it survives into JSONL. */
export const RecordedError = z.object({
  kind: z.string(),
  name: z.string(),
  message: z.string(),
  cause: z.string().optional(),
  /** The HTTP status, for errors a server answered with. */
  status: z.number().int().optional(),
});
export type RecordedError = z.infer<typeof RecordedError>;

/**
 * Whether the same attempt would fail the same way again: a drift between the chat template and the
 * tokens, or a request the server rejected as malformed (4xx other than 408, 409, 429). Such failures
 * are recorded as terminal and not retried on resume; everything else may be transient. A server's
 * own fault (`sampler-reply`: a reply its sampler could not have produced, or a 4xx on a prompt that
 * holds its earlier replies) is not the request's: a fresh attempt samples anew.
 */
export function isDeterministicFailure(error: RecordedError): boolean {
  if (error.kind === 'sampler-reply') return false;
  if (error.kind === 'token-alignment') return true;
  return error.status !== undefined && error.status >= 400 && error.status < 500 && ![408, 409, 429].includes(error.status);
}

/** An error as data; credentials in any URL its message or cause names are masked, whichever path raised it (failure rows are shared more widely than logs). */
export function recordError(error: unknown): RecordedError {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? error.cause.message : error.cause === undefined ? undefined : String(error.cause);
    const status = (error as { status?: unknown }).status;
    return {
      kind: GymnastError.isInstance(error) ? error.kind : 'unexpected',
      name: error.name,
      message: redactUrls(error.message),
      ...(cause === undefined ? {} : { cause: redactUrls(cause) }),
      ...(typeof status === 'number' ? { status } : {}),
    };
  }
  return { kind: 'unexpected', name: 'NonError', message: redactUrls(String(error)) };
}

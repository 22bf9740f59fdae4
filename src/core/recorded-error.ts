import { z } from 'zod';
import { GymnastError } from './errors/gymnast-error.js';

/** An error as data, so it survives into JSONL. */
export const RecordedError = z.object({
  kind: z.string(),
  name: z.string(),
  message: z.string(),
  cause: z.string().optional(),
});
export type RecordedError = z.infer<typeof RecordedError>;

export function recordError(error: unknown): RecordedError {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? error.cause.message : error.cause === undefined ? undefined : String(error.cause);
    return {
      kind: GymnastError.isInstance(error) ? error.kind : 'unexpected',
      name: error.name,
      message: error.message,
      ...(cause === undefined ? {} : { cause }),
    };
  }
  return { kind: 'unexpected', name: 'NonError', message: String(error) };
}

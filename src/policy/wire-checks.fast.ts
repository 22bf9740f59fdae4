// Fast path: mirrors zod 4.6.7's number, int and list checks (the answer checks'); 24–70× faster (docs/fast-paths.md#hand-checks); guard: test/policy/wire-response-fast-path.test.ts.
/**
 * Checks of parsed JSON, each accepting exactly what the zod type it names accepts, for the backends'
 * hand-read responses (`BackendRecipe.readResponse`).
 */
import { isRecord } from '../util/is-record.js';

/** `z.number()`: finite. */
export function isNumber(value: unknown): value is number {
  return Number.isFinite(value);
}

/** `z.number().int()`: a safe integer. */
export function isInt(value: unknown): value is number {
  return Number.isSafeInteger(value);
}

/** `z.number().int().nonnegative()`: a safe integer ≥ 0. */
export function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** `z.array(z.number().int())`. */
export function isIntList(value: unknown): value is number[] {
  if (!Array.isArray(value)) return false;
  // Indexed, not for…of: for…of boxed every element (a logprob list is doubles) on every reply.
  for (let i = 0; i < value.length; i++) if (!Number.isSafeInteger(value[i])) return false;
  return true;
}

/** `z.array(z.number().nullable())`. */
export function isNumberOrNullList(value: unknown): value is (number | null)[] {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (item !== null && !Number.isFinite(item)) return false;
  }
  return true;
}

/** `z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int() })`, read as it reads it (other fields dropped). */
export function readUsage(value: unknown): { prompt_tokens: number; completion_tokens: number } | undefined {
  if (!isRecord(value)) return undefined;
  const { prompt_tokens, completion_tokens } = value;
  return isInt(prompt_tokens) && isInt(completion_tokens) ? { prompt_tokens, completion_tokens } : undefined;
}

import { z } from 'zod';
import { BadQueryError } from './bad-query-error.js';

/** Parses a query string with `schema`; empty values count as absent, and a bad value is a `BadQueryError` naming its parameter. */
export function parseQueryParameters<T extends z.ZodType>(schema: T, search: URLSearchParams): z.infer<T> {
  const given: Record<string, string> = {};
  for (const [name, value] of search) if (value !== '') given[name] = value;
  const parsed = schema.safeParse(given);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new BadQueryError(String(issue.path[0] ?? '?'), issue.message);
}

/** Where a page of a table starts and how long it is, as every paged query string gives them. */
export const PageWindow = z.object({
  offset: z.coerce
    .number()
    .int()
    .min(0)
    .max(2 ** 32)
    .default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

import { z } from 'zod';
import { isRecord } from '../../util/is-record.js';

/**
 * A request schema as the OpenAI routes read bodies: strictly (an unknown field is a 400 naming it, see
 * `parseBody`), and a field the route reads sent as null is read as not sent, as OpenAI reads it: the
 * SDKs type most parameters `T | null` and send null as written. A null in a field the route does not
 * read is still an unknown field.
 */
export function openAiRequest<Shape extends z.ZodRawShape>(shape: Shape) {
  const known = new Set(Object.keys(shape));
  const unset = (body: unknown) =>
    isRecord(body) ? Object.fromEntries(Object.entries(body).filter(([name, value]) => value !== null || !known.has(name))) : body;
  return z.preprocess(unset, z.strictObject(shape));
}

/** OpenAI's metadata: at most 16 pairs, keys up to 64 characters, values up to 512. */
const Metadata = z
  .record(z.string().max(64), z.string().max(512))
  .refine((pairs) => Object.keys(pairs).length <= 16, 'metadata holds at most 16 key-value pairs');

/**
 * Fields that label a request or hint at caching (chat and Responses): they ask nothing of the reply,
 * so any well-formed value is served. This server caches nothing, so a cache hint changes nothing.
 */
export const requestLabels = {
  user: z.string().optional(),
  metadata: Metadata.optional(),
  prompt_cache_key: z.string().optional(),
  prompt_cache_retention: z.enum(['in_memory', '24h']).optional(),
  safety_identifier: z.string().max(128).optional(),
};

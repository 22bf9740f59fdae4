import { isDeepStrictEqual } from 'node:util';

/**
 * What a server's answer adds to what it was sent: NeMo Gym's verifiers echo the whole request back
 * (`**body`) with their own fields; only those they added or changed are reported, never the keys the
 * caller reads itself (`read`).
 */
export function reportedFields(
  answer: Readonly<Record<string, unknown>>,
  sent: Readonly<Record<string, unknown>>,
  read: ReadonlySet<string>,
): Record<string, unknown> {
  return Object.fromEntries(Object.entries(answer).filter(([key, value]) => !read.has(key) && !(key in sent && isDeepStrictEqual(sent[key], value))));
}

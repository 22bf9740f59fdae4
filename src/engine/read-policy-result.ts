import { PolicyResult } from '../core/policy-result.js';
import { plainPolicyResult } from './plain-policy-result.fast.js';

/**
 * What a policy returned, as the `PolicyResult` schema reads it, or zod's issues. The shape every
 * backend returns is confirmed by hand and rebuilt with the schema's fields in its order (its
 * defaults applied, other fields dropped, as the schema does); anything else goes through the schema,
 * which names what is wrong. Once a turn, zod's generic walk of the arrays cost more than this.
 */
export function readPolicyResult(raw: unknown): ReturnType<typeof PolicyResult.safeParse> {
  const read = plainPolicyResult(raw);
  return read ? { success: true, data: read } : PolicyResult.safeParse(raw);
}

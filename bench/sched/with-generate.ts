import type { PolicyResultInput } from '../../src/core/policy-result.js';
import type { Policy, PolicyRequest } from '../../src/policy/policy.js';

/** `policy` with its `generate` replaced (a bench's wrapper that notes what goes by); the rest is passed through. */
export function withGenerate(policy: Policy, generate: (request: PolicyRequest, signal: AbortSignal) => Promise<PolicyResultInput>): Policy {
  return { name: policy.name, generate, ...(policy.endSession ? { endSession: (id: string) => policy.endSession!(id) } : {}), close: () => policy.close() };
}

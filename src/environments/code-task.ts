import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { SandboxPool } from '../sandbox/sandbox-pool.js';
import type { SandboxLimitsInput } from '../sandbox/sandbox-limits.js';
import { SANDBOX_LANGUAGES } from '../sandbox/sandbox-runtime.js';
import { UnitTests } from './unit-tests.js';

/**
 * A code task: NeMo Gym code_gen's row (`verifier_metadata.unit_tests`), unchanged, plus what gymnast
 * adds: the program's language (`python` by default) and the reward, `all` (1 when every test passes,
 * NeMo Gym's) or `fraction` (the share of tests passed).
 */
export const CodeTask = z.object({
  verifier_metadata: z.looseObject({ unit_tests: UnitTests }),
  language: z.enum(SANDBOX_LANGUAGES).default('python'),
  reward_mode: z.enum(['all', 'fraction']).default('all'),
});
export type CodeTask = z.infer<typeof CodeTask>;

/** How a code environment runs its programs; the same for each of its episodes. */
export interface CodeEnvironmentOptions {
  /** The sandboxes tests run in (default: one per core). Environments may share one. */
  readonly pool?: SandboxPool;
  /** Limits for each test's run (default: the sandbox's defaults, with a 5 s CPU and 10 s wall cap). */
  readonly limits?: SandboxLimitsInput;
}

export const CODE_TEST_LIMITS: SandboxLimitsInput = { cpuSeconds: 5, wallMs: 10_000 };

let sharedPool: SandboxPool | undefined;

/** The pool environments use when given none: one per process, as many sandboxes at once as cores. */
export function defaultSandboxPool(): SandboxPool {
  sharedPool ??= new SandboxPool(availableParallelism());
  return sharedPool;
}

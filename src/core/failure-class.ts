import { z } from 'zod';

/**
 * Why a rollout has no reward. One enum for every writer: the episode loop, NeMo Gym agent servers,
 * and rows read back from files (NeMo Gym's own class names are mapped onto it on reading).
 * - `policy-error`: the policy failed (a server error that outlived its retries, a malformed answer).
 * - `transport`: the connection failed (refused, reset) after its retries.
 * - `timeout`: a request or the episode ran past its deadline.
 * - `env-error`: the environment (or its verifier / judge) failed.
 * - `token-alignment`: the chat template and the sampled tokens disagree (deterministic: not retried).
 * - `template-error`: the chat template refused the conversation.
 * - `agent-error`: a NeMo Gym agent server failed the rollout or answered without a reward.
 * - `aborted`: the run was interrupted; does not use up an attempt on resume.
 */
export const FailureClass = z.enum(['policy-error', 'transport', 'timeout', 'env-error', 'token-alignment', 'template-error', 'agent-error', 'aborted']);
export type FailureClass = z.infer<typeof FailureClass>;

/**
 * NeMo Gym's `_ng_failure_class` values (reference/nemo-semantics.md §1.3) in our enum. `skipped` and
 * `kill_shaped` rows never ran to a verdict (a walltime budget, a kill), so like `aborted` they are
 * retried without using up an attempt; `legitimate` failures are the agent's own.
 */
const NEMO_GYM_FAILURE_CLASSES: ReadonlyMap<string, FailureClass> = new Map([
  ['judge_failed', 'env-error'],
  ['transient', 'transport'],
  ['timeout_exceeded', 'timeout'],
  ['skipped', 'aborted'],
  ['kill_shaped', 'aborted'],
  ['legitimate', 'agent-error'],
  ['agent_run_error', 'agent-error'],
  ['agent_request_failed', 'transport'],
]);

/**
 * Ours as they are; NeMo Gym's mapped; anything else a failing agent reported is an `agent-error`.
 * A Map, not an object literal: a row's `toString` or `constructor` must not find Object's prototype.
 */
export function toFailureClass(raw: string): FailureClass {
  const ours = FailureClass.safeParse(raw);
  if (ours.success) return ours.data;
  return NEMO_GYM_FAILURE_CLASSES.get(raw) ?? 'agent-error';
}

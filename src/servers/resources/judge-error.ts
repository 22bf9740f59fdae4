import { GymnastError } from '../../core/errors/gymnast-error.js';

/**
 * A verifier's judge (an LLM grader, a sandbox) could not give a verdict. Thrown inside `verify`, it
 * becomes NeMo Gym's judge failsafe reply: the body, `reward: 0`, `_ng_failure_class: "judge_failed"`
 * and `_ng_failure_judge_error`, which collectors route to the failure sidecar instead of training on.
 */
export class JudgeError extends GymnastError {
  readonly kind = 'judge';
}

/** Across two copies of the package in one process, which agree on kinds but not on classes. */
export function isJudgeError(error: unknown): error is JudgeError {
  return GymnastError.isInstance(error) && error.kind === 'judge';
}

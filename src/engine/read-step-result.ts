import { StepResult } from '../core/step-result.js';
import { plainStepResult } from './plain-step-result.fast.js';

/**
 * What an environment's step returned, as the `StepResult` schema reads it, or zod's issues. The
 * usual shape is confirmed by hand and rebuilt as the schema returns it; anything else goes through
 * the schema, which names what is wrong.
 */
export function readStepResult(raw: unknown): ReturnType<typeof StepResult.safeParse> {
  const read = plainStepResult(raw);
  return read ? { success: true, data: read } : StepResult.safeParse(raw);
}

import type { GrpoRunStep } from '../train/grpo-run.js';

/**
 * A training step's metrics as TensorBoard scalars, `train/<metric>` at the step's number: every
 * number the step records (reward, pass_at_1, pass_at_k, kl, clip_fraction, entropy,
 * tokens_per_second, held_out_accuracy when measured, …), the same values as its line in metrics.jsonl.
 */
export function trainScalars(step: GrpoRunStep): Map<string, number> {
  const scalars = new Map<string, number>();
  for (const [name, value] of Object.entries(step))
    if (name !== 'step' && typeof value === 'number' && Number.isFinite(value)) scalars.set(`train/${name}`, value);
  return scalars;
}

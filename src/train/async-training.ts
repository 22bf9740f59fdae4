import { z } from 'zod';
import { InFlight } from './rollout-sampler.js';

/**
 * `gymnast train --async`: collection in a sampler process overlaps the trainer's steps. A step trains
 * only on groups every turn of which is at most `maxStaleness` versions older than the trainer's
 * weights (0: synchronous, the sampler waits for each step's weights).
 */
export const AsyncTraining = z.object({
  maxStaleness: z.number().int().nonnegative().default(1),
  inFlight: InFlight.default('finish'),
});
export type AsyncTraining = z.infer<typeof AsyncTraining>;
export type AsyncTrainingInput = z.input<typeof AsyncTraining>;

import { z } from 'zod';

/**
 * A BullMQ job's data: which run and which rollout. It points at the planned row (the run's `rows`
 * hash) and never carries it or any token array, so the queue stays small whatever the rows hold.
 */
export const RolloutJob = z.object({ run: z.string().regex(/^[\da-f]{16}$/), key: z.string().regex(/^\d+\.\d+\.\d+$/) });
export type RolloutJob = z.infer<typeof RolloutJob>;

/** The one job name gymnast adds (BullMQ names jobs; the id is what identifies a rollout). */
export const ROLLOUT_JOB_NAME = 'rollout';

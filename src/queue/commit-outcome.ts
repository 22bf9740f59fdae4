import type { Redis } from 'ioredis';
import type { RunKeys } from './queue-keys.js';

/**
 * Sets a rollout's outcome only if none is set (HSETNX) and its planned row is still there (the
 * coordinator removes it once the row is in the files), and, when it did, tells the coordinator (RPUSH
 * on `done`), in one atomic step: a stalled job that ran twice commits once, even when its second run
 * ends after the first one's row was written, and a commit is never set without its notice. Nothing is
 * set for a run that is over (its config gone).
 */
const COMMIT = `
if redis.call('EXISTS', KEYS[3]) == 0 then return -1 end
if redis.call('HEXISTS', KEYS[4], ARGV[1]) == 0 then return 0 end
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[1])
return 1`;

/** What a commit did: kept this outcome, found one kept already, or found the run over. */
export type Commit = 'committed' | 'duplicate' | 'run-over';

/**
 * Tells the coordinator that this worker could not run a rollout at all (not a failed rollout, which is
 * an outcome): the run stops with `message`. The job itself then ends, so the run's --resume enqueues it afresh.
 */
export async function reportWorkerError(redis: Redis, keys: RunKeys, key: string, message: string): Promise<void> {
  await redis.multi().hset(keys.errors, key, message).rpush(keys.done, key).exec();
}

export async function commitOutcome(redis: Redis, keys: RunKeys, key: string, row: string): Promise<Commit> {
  const result = await redis.eval(COMMIT, 4, keys.results, keys.done, keys.config, keys.rows, key, row);
  return result === 1 ? 'committed' : result === 0 ? 'duplicate' : 'run-over';
}

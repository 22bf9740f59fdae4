import type { MaterializedRow } from '../core/result-row.js';

/** Every key gymnast's queue keeps in Redis starts with this, BullMQ's included. */
export const QUEUE_PREFIX = 'gymnast';
/** The one BullMQ queue every run's rollouts go through: a worker serves whichever run enqueued them. */
export const QUEUE_NAME = 'rollouts';
/** Sorted set of worker ids by their last heartbeat (ms since the epoch). */
export const WORKERS_KEY = `${QUEUE_PREFIX}:workers`;

/** A run's own keys: what workers read and commit, and what the coordinator drains. */
export interface RunKeys {
  /** The settings that shape a rollout (JSON), as the run identity records them; gone once the run completes. */
  config: string;
  /** Planned rows of the rollouts in the window, by rollout key: a job points at one. */
  rows: string;
  /** Committed outcomes by rollout key: set once (HSETNX), removed when the coordinator has written the row. */
  results: string;
  /** Rollout keys committed (or failed on a worker) since the coordinator last looked (a list it pops). */
  done: string;
  /** Why a worker could not run a rollout at all (its policy is not the run's, an agent it lacks), by rollout key. */
  errors: string;
}

export function runKeys(runId: string): RunKeys {
  const base = `${QUEUE_PREFIX}:run:${runId}`;
  return { config: `${base}:config`, rows: `${base}:rows`, results: `${base}:results`, done: `${base}:done`, errors: `${base}:errors` };
}

/** A rollout's key within its run: task, rollout and attempt (an attempt is a rollout of its own). */
export function rolloutKey(row: MaterializedRow): string {
  return `${row._ng_task_index}.${row._ng_rollout_index}.${row._ng_attempt_index ?? 0}`;
}

/** The BullMQ job id of a rollout: adding it again while the job exists is a no-op. BullMQ ids take no `:`. */
export function jobId(runId: string, key: string): string {
  return `${runId}-${key}`;
}

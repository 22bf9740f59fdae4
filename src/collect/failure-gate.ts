import { FailedRolloutsError } from '../core/errors/failed-rollouts-error.js';
import { RetryableFailuresError } from '../core/errors/retryable-failures-error.js';

/** How a collection's planned rollouts ended, as its summary counts them. */
export interface RunFailures {
  /** The planned rollouts (a resumed run's earlier ones included). */
  planned: number;
  /** Planned rollouts without a success that `--resume` would run again. */
  retryable: number;
  /** Planned rollouts without a success that it would not: a terminal failure, or `--max-attempts` used up. */
  givenUp: number;
  /** Where the failures are, for the message. */
  failuresFile: string;
}

/**
 * How many rollouts may end without a success: a whole count (`10`) or, below 1, a fraction of the
 * planned rollouts (`0.05`). The default, 0, lets none: a run with failures is not a finished run.
 */
export const DEFAULT_FAIL_ON_ERROR = 0;

/**
 * Throws when the runs together have more rollouts without a success than `limit` allows:
 * `RetryableFailuresError` (exit 75) when `--resume` would run any of them again, so that
 * `collect && train` never trains on a run that is not finished; `FailedRolloutsError` (exit 1) when
 * none would be.
 */
export function assertFailuresWithin(runs: readonly RunFailures[], limit = DEFAULT_FAIL_ON_ERROR): void {
  const planned = sum(runs, (run) => run.planned);
  const retryable = sum(runs, (run) => run.retryable);
  const failed = retryable + sum(runs, (run) => run.givenUp);
  const allowed = limit < 1 ? Math.floor(limit * planned) : limit;
  if (failed <= allowed) return;
  const files = runs
    .filter((run) => run.retryable + run.givenUp > 0)
    .map((run) => run.failuresFile)
    .join(', ');
  const past = `${failed} of ${planned} rollouts failed, more than --fail-on-error ${limit < 1 && limit > 0 ? `${limit} (${allowed} of ${planned})` : limit} allows`;
  if (retryable > 0) {
    throw new RetryableFailuresError(
      `${past}; --resume would run ${retryable === failed ? 'all of them' : `${retryable} of them`} again: run the same command with --resume (see ${files})`,
      { failed, retryable },
    );
  }
  throw new FailedRolloutsError(`${past}, and none will be retried (terminal, or out of attempts: see ${files})`, failed);
}

function sum(runs: readonly RunFailures[], count: (run: RunFailures) => number): number {
  return runs.reduce((total, run) => total + count(run), 0);
}

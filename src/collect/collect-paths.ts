import { dirname, basename, extname, join } from 'node:path';

/** NeMo Gym's artifact names beside `--output results/x.jsonl`. */
export function collectPaths(output: string) {
  const stem = join(dirname(output), basename(output, extname(output)));
  return {
    output,
    materialized: `${stem}_materialized_inputs.jsonl`,
    failures: `${stem}_failures.jsonl`,
    aggregate: `${stem}_aggregate_metrics.json`,
    /** The run's identity (plan and config hashes), checked by `--resume`. */
    run: `${stem}_run.json`,
    /** Held by the one run writing these files (pid, host, start, command); removed when it ends. */
    lock: `${stem}_run.lock`,
  };
}

/**
 * JSONL files that sit beside rollouts in a run folder but are not rollouts: gymnast's and NeMo Gym's
 * sidecars, NeMo Gym's reward profile, and the health report's verdicts. Every reader that globs a
 * folder for runs skips them.
 */
const NOT_ROLLOUTS = /_(failures|materialized_inputs|reward_profiling|health)\.jsonl$/;

/** Whether a path can hold rollouts (a folder's listing also wants `.jsonl`; a path given by hand is taken as it is). */
export function isRolloutsFile(path: string): boolean {
  return !NOT_ROLLOUTS.test(path);
}

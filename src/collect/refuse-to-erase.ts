import { statSync } from 'node:fs';
import { ConfigError } from '../core/errors/config-error.js';
import { OutputExistsError } from '../core/errors/output-exists-error.js';
import { countLines } from '../util/count-lines.js';
import type { collectPaths } from './collect-paths.js';
import { resumeKind } from './run-identity.js';

type CollectPaths = ReturnType<typeof collectPaths>;

/**
 * A fresh start empties the output and its failures, so it is refused over rows already there unless
 * `overwrite` says to erase them; the message names each file with its rows and the ways on. It only
 * reads: a refused run leaves every file as it was. `resume` with a run to take up (gymnast's, or
 * NeMo Gym's plan and rows without a `_run.json`) is no fresh start; without its plan it would be, and
 * only a move or `overwrite` goes on. Both at once contradict each other.
 */
export async function refuseToErase(paths: CollectPaths, options: { resume?: boolean; overwrite?: boolean }): Promise<void> {
  if (options.resume && options.overwrite)
    throw new ConfigError(
      '--resume and --overwrite contradict each other: --resume continues the rows already in the output, --overwrite erases them; give one of them',
    );
  if (options.overwrite || (options.resume && resumeKind(paths) !== 'none')) return;
  const held = [];
  for (const path of [paths.output, paths.failures]) {
    if ((statSync(path, { throwIfNoEntry: false })?.size ?? 0) > 0) held.push({ path, rows: await countLines(path) });
  }
  if (held.length === 0) return;
  const holding = held.map(({ path, rows }) => `${rows} ${rows === 1 ? 'row' : 'rows'} in ${path}`).join(' and ');
  if (options.resume) {
    throw new OutputExistsError(
      held,
      `cannot resume ${paths.output}: its plan ${paths.materialized} is missing, and a fresh start would erase the ${holding}. Move them away, or run with --overwrite instead of --resume to start afresh.`,
    );
  }
  throw new OutputExistsError(
    held,
    `--output ${paths.output} already holds an earlier run's rows (${holding}), which a fresh start would erase. Run with --resume to continue that run, or with --overwrite to start afresh.`,
  );
}

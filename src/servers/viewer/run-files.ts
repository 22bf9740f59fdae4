import { existsSync, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { ConfigError } from '../../core/errors/config-error.js';
import { readRow } from '../../core/row-reader.js';
import { collectPaths, isRolloutsFile } from '../../collect/collect-paths.js';
import { samplerInRunFile } from '../../collect/run-identity.js';
import { healthPaths } from '../../metrics/health/health-paths.js';
import { notRegularFile } from '../../util/open-regular-file.js';
import { readRunFileText, RUN_FILES_RULE, runFileLines } from '../../viewer/open-run-file.js';
import type { RunFiles } from '../../viewer/run-index.js';

/** A run to view: its files, and the policy `gymnast collect` recorded for it (`_run.json`), when there is one. */
export interface ViewedRun extends RunFiles {
  policy: string | null;
  /** Agents whose rows an agent server sampled with a model of its own: not the run's policy's tokens. */
  remoteAgents: string[];
}

export interface FindRunsOptions {
  /** Hears, once, which runs of a folder were skipped because one of their files is a link or not a regular file. */
  onNotice?: (message: string) => void;
}

/**
 * The runs at `path`: an output file of `gymnast collect` (its failure sidecar beside it), or a folder
 * whose output files, and those of its subfolders (one level: `runs/NAME/rollouts.jsonl`, as users lay
 * runs out), are each a run. A path that is neither is a `ConfigError` naming it. A path given
 * as a link is followed (the user chose it), and its run read in the folder of the file it names; in
 * that folder, as in a folder given, every file the viewer reads must be a regular file, not a link
 * (which could lead out of it): a folder's runs with one are skipped, a file's run is refused, and a
 * subfolder that is a link is not looked into.
 */
export async function findRuns(path: string, options: FindRunsOptions = {}): Promise<ViewedRun[]> {
  if (!existsSync(path)) throw new ConfigError(`cannot view ${path}: no such file or folder`);
  const chosen = lstatSync(path).isSymbolicLink() ? realpathSync(path) : path;
  if (!statSync(chosen).isDirectory()) return [await singleRun(chosen)];
  const found: { output: string; name: string }[] = [];
  const skipped: string[] = [];
  for (const relative of runFilesIn(chosen)) {
    const output = join(chosen, relative);
    const unsafe = unsafeRunFile(output);
    if (unsafe !== undefined) skipped.push(relative === basename(relative) ? unsafe : `${dirname(relative)}/${unsafe}`);
    else if (!(await notARun(output))) found.push({ output, name: relative });
  }
  const runs = await Promise.all(uniqueNames(found, basename(resolve(chosen))).map(({ output, id }) => viewedRun(output, id)));
  const skips =
    skipped.length === 0
      ? ''
      : `skipped ${skipped.length} ${skipped.length === 1 ? 'run' : 'runs'} in ${chosen}: ${skipped.join('; ')} (${RUN_FILES_RULE}; view a link's file by its own path)`;
  if (runs.length === 0) throw new ConfigError(`${path} holds no run: ${skips || 'no output file of gymnast collect (rows with _ng_task_index) in it'}`);
  if (skips) options.onNotice?.(skips);
  return runs;
}

async function singleRun(output: string): Promise<ViewedRun> {
  const unsafe = unsafeRunFile(output, true);
  if (unsafe !== undefined) throw new ConfigError(`cannot view ${output}: ${unsafe}; ${RUN_FILES_RULE}`);
  const problem = await notARun(output);
  if (problem) throw new ConfigError(`${output} is not a run: ${problem}`);
  return viewedRun(output, runName(basename(output), basename(dirname(resolve(output)))));
}

/**
 * The output files in `folder` and in its subfolders one level down, as paths relative to it, in order.
 * Hidden folders and links to folders are not looked into: a link could lead out of the folder given.
 */
function runFilesIn(folder: string): string[] {
  const outputs = (names: string[]) => names.filter((name) => name.endsWith('.jsonl') && isRolloutsFile(name)).sort();
  const entries = readdirSync(folder, { withFileTypes: true });
  const subfolders = entries.filter((entry) => entry.isDirectory() && !entry.name.startsWith('.')).map((entry) => entry.name);
  return [
    ...outputs(entries.map((entry) => entry.name)),
    ...subfolders.sort().flatMap((sub) => outputs(readdirSync(join(folder, sub))).map((name) => join(sub, name))),
  ];
}

/**
 * A run's name as the user laid it out: the output file's path below the folder given, without
 * `.jsonl`; a file named `rollouts.jsonl` is named by its folder (`runs/NAME/rollouts.jsonl` is NAME).
 * `folderName` names a `rollouts.jsonl` directly in the folder given.
 */
function runName(relative: string, folderName: string): string {
  const stem = relative.slice(0, -extname(relative).length);
  if (basename(stem) !== 'rollouts') return stem;
  return stem === 'rollouts' ? folderName : dirname(stem);
}

/** Each run with its name; a name two runs would share (`a.jsonl` beside `a/rollouts.jsonl`) is the full path below the folder instead. */
function uniqueNames(found: readonly { output: string; name: string }[], folderName: string): { output: string; id: string }[] {
  const named = found.map(({ output, name }) => ({ output, relative: name, id: runName(name, folderName) }));
  const counts = new Map<string, number>();
  for (const { id } of named) counts.set(id, (counts.get(id) ?? 0) + 1);
  return named.map(({ output, relative, id }) => ({ output, id: counts.get(id)! > 1 ? relative.slice(0, -extname(relative).length) : id }));
}

/**
 * The first of a run's files (output, failures, health report, `_run.json`) that is there but is a
 * link or not a regular file, as `name: why` (full paths when `fullPaths`), or undefined when none is.
 * Reads check again on the descriptor they read from; this lets a run be skipped before it is served.
 */
function unsafeRunFile(output: string, fullPaths = false): string | undefined {
  const { failures, run } = collectPaths(output);
  const { summary, verdicts } = healthPaths(output);
  for (const file of [output, failures, verdicts, summary, run]) {
    const found = lstatSync(file, { throwIfNoEntry: false });
    const problem = found && notRegularFile(found);
    if (problem) return `${fullPaths ? file : basename(file)}: ${problem}`;
  }
  return undefined;
}

async function viewedRun(output: string, id: string): Promise<ViewedRun> {
  const paths = collectPaths(output);
  // A damaged _run.json only costs the model's name here.
  const { policy, remoteAgents } = existsSync(paths.run) ? samplerInRunFile(await readRunFileText(paths.run)) : { policy: undefined, remoteAgents: [] };
  return { id, output, failures: paths.failures, policy: policy ?? null, remoteAgents };
}

/** Why a file is not a run's output, or undefined when it is: its first row must read as one; an empty file needs the run's `_run.json`. */
async function notARun(file: string): Promise<string | undefined> {
  if (file.endsWith('.jsonl') && !isRolloutsFile(file)) return `it is written beside a run's rollouts (a sidecar or report); view the output file beside it`;
  for await (const { line, text } of runFileLines(file)) {
    try {
      readRow(JSON.parse(text), `${file}:${line}`);
      return undefined;
    } catch (error) {
      return error instanceof SyntaxError ? `line ${line} is not JSON` : (error as Error).message;
    }
  }
  return existsSync(collectPaths(file).run) ? undefined : 'it is empty, and no _run.json of gymnast collect is beside it';
}

import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { ConfigError } from '../../core/errors/config-error.js';
import { readRow } from '../../core/row-reader.js';
import { collectPaths, isRolloutsFile } from '../../collect/collect-paths.js';
import { recordedPolicy } from '../../collect/run-identity.js';
import { readJsonLines } from '../../util/json-lines.js';
import type { RunFiles } from '../../viewer/run-index.js';

/** A run to view: its files, and the policy `gymnast collect` recorded for it (`_run.json`), when there is one. */
export interface ViewedRun extends RunFiles {
  policy: string | null;
}

/**
 * The runs at `path`: an output file of `gymnast collect` (its failure sidecar beside it), or a folder
 * whose output files are each a run. A path that is neither is a `ConfigError` naming it.
 */
export async function findRuns(path: string): Promise<ViewedRun[]> {
  if (!existsSync(path)) throw new ConfigError(`cannot view ${path}: no such file or folder`);
  if (!statSync(path).isDirectory()) {
    const problem = await notARun(path);
    if (problem) throw new ConfigError(`${path} is not a run: ${problem}`);
    return [viewedRun(path)];
  }
  const runs: ViewedRun[] = [];
  const names = readdirSync(path).filter((name) => name.endsWith('.jsonl') && isRolloutsFile(name));
  for (const name of names.sort()) if (!(await notARun(join(path, name)))) runs.push(viewedRun(join(path, name)));
  if (runs.length === 0) throw new ConfigError(`${path} holds no run: no output file of gymnast collect (rows with _ng_task_index) in it`);
  return runs;
}

function viewedRun(output: string): ViewedRun {
  const paths = collectPaths(output);
  return { id: basename(output, extname(output)), output, failures: paths.failures, policy: recordedPolicy(paths.run) ?? null }; // a damaged _run.json only costs the model's name here
}

/** Why a file is not a run's output, or undefined when it is: its first row must read as one; an empty file needs the run's `_run.json`. */
async function notARun(file: string): Promise<string | undefined> {
  if (file.endsWith('.jsonl') && !isRolloutsFile(file)) return `it is written beside a run's rollouts (a sidecar or report); view the output file beside it`;
  for await (const { line, text } of readJsonLines(file)) {
    try {
      readRow(JSON.parse(text), `${file}:${line}`);
      return undefined;
    } catch (error) {
      return error instanceof SyntaxError ? `line ${line} is not JSON` : (error as Error).message;
    }
  }
  return existsSync(collectPaths(file).run) ? undefined : 'it is empty, and no _run.json of gymnast collect is beside it';
}

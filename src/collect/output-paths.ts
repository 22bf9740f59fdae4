import { accessSync, constants, mkdirSync, statSync, type Stats } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { OutputPathError } from '../core/errors/output-path-error.js';
import { healthPaths } from '../metrics/health/health-paths.js';
import { fileErrorReason } from '../util/file-error-reason.js';
import type { collectPaths } from './collect-paths.js';

type CollectPaths = ReturnType<typeof collectPaths>;

const roles: Record<keyof CollectPaths | keyof ReturnType<typeof healthPaths>, string> = {
  output: 'rollouts',
  materialized: 'materialized inputs',
  failures: 'failures',
  aggregate: 'aggregate metrics',
  run: 'run record',
  lock: 'run lock',
  summary: 'health summary',
  verdicts: 'health verdicts',
};

/** Where a folder is being written, these read better than the general wording. */
const reasons: Record<string, string> = {
  ENOTDIR: 'a part of the path is a file, not a folder',
  ENOENT: 'the folder cannot hold files',
};

/**
 * Checks, reading only, that a run can write every file it makes: the output's folder, or the nearest
 * existing folder above it, is writable, and no file of the run is a directory. The first write, the
 * run lock, comes after this, so a bad path leaves nothing behind.
 */
export function checkOutputPaths(paths: CollectPaths): void {
  const folder = dirname(resolve(paths.output));
  const existing = nearestExisting(folder);
  if (!existing.stats.isDirectory()) throw new OutputPathError(existing.path, `cannot write in ${folder}: ${existing.path} is a file, not a folder (ENOTDIR)`);
  try {
    accessSync(existing.path, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw cannotWriteIn(existing.path, error);
  }
  for (const [role, path] of Object.entries(paths) as [keyof CollectPaths, string][]) {
    if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) throw new OutputPathError(path, isDirectoryMessage(role, path));
  }
}

/** A file the run reads, and the flag that named it. */
export interface ReadFile {
  flag: string;
  path: string;
}

/**
 * Refuses a file the run reads that is one it writes (or removes): `-i data.jsonl -o data.jsonl`
 * would replace the dataset with its first rollout, and the run's own `_failures.jsonl` or
 * materialized inputs given as `-i` would be emptied before being read. Files are compared as the OS
 * sees them (device and inode), so a symbolic link, another spelling of the path or a hard link is
 * caught too. Reads only; a file that does not exist yet cannot be one of them.
 */
export function checkReadFilesApart(paths: CollectPaths, files: readonly ReadFile[]): void {
  const written = [...Object.entries(paths), ...Object.entries(healthPaths(paths.output))] as [keyof typeof roles, string][];
  for (const file of files) {
    const read = statSync(file.path, { throwIfNoEntry: false });
    if (read === undefined) continue;
    for (const [role, path] of written) {
      const stats = statSync(path, { throwIfNoEntry: false });
      if (stats === undefined || stats.dev !== read.dev || stats.ino !== read.ino) continue;
      const same = resolve(file.path) === resolve(path) ? 'is' : `is the same file as ${path},`;
      throw new OutputPathError(
        path,
        `${file.flag} ${file.path} ${same} where this run (--output ${paths.output}) writes its ${roles[role]}: it would be overwritten while it is read. Choose another --output, or copy ${file.path} elsewhere first.`,
      );
    }
  }
}

/**
 * Creates the output's missing folders (as NeMo Gym does), one level at a time: Node's recursive
 * mkdir never returns for a path under /proc, which answers ENOENT to every level.
 */
export function makeOutputFolder(output: string): void {
  const folder = dirname(resolve(output));
  const missing: string[] = [];
  for (let path = folder; statSync(path, { throwIfNoEntry: false }) === undefined; path = dirname(path)) missing.unshift(path);
  for (const path of missing) {
    try {
      mkdirSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw cannotWriteIn(dirname(path), error);
    }
  }
}

/** An OS error from creating a file or folder in `folder` as an `OutputPathError` naming the folder and the reason. */
export function cannotWriteIn(folder: string, error: unknown): OutputPathError {
  const code = (error as NodeJS.ErrnoException).code ?? 'unknown';
  const reason = reasons[code] ?? fileErrorReason(error) ?? (error as Error).message;
  return new OutputPathError(folder, `cannot write in ${folder}: ${reason} (${code})`, { cause: error });
}

function isDirectoryMessage(role: keyof CollectPaths, path: string): string {
  if (role === 'output') return `--output ${path} is a directory: name a file, e.g. ${join(path, 'rollouts.jsonl')}`;
  return `${path} is a directory, where this run would write its ${roles[role]}: move it away or choose another --output`;
}

/** The folder itself or its closest existing ancestor; a part of the path that is a file stops the walk there. */
function nearestExisting(folder: string): { path: string; stats: Stats } {
  for (let path = folder; ; path = dirname(path)) {
    let stats: Stats | undefined;
    try {
      stats = statSync(path, { throwIfNoEntry: false });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOTDIR') throw cannotWriteIn(path, error);
    }
    if (stats) return { path, stats };
  }
}

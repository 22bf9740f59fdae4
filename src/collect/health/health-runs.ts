import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../core/errors/config-error.js';
import { isRolloutsFile } from '../collect-paths.js';

/**
 * The rollout files RUN names: the file itself, or every rollout file in the folder (each checked as
 * its own run, since task indices restart in every run). A folder without one is an error.
 */
export function healthRuns(run: string): string[] {
  let directory: boolean;
  try {
    directory = statSync(run).isDirectory();
  } catch {
    throw new ConfigError(`cannot read ${run}: no such file or folder`);
  }
  if (!directory) return [run];
  const files = readdirSync(run)
    .filter((name) => name.endsWith('.jsonl') && isRolloutsFile(name))
    .sort()
    .map((name) => join(run, name));
  if (files.length === 0) throw new ConfigError(`${run}: no rollout files (*.jsonl) in this folder`);
  return files;
}

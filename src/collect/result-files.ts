import { existsSync } from 'node:fs';
import { ConfigError } from '../core/errors/config-error.js';
import type { ResultRow } from '../metrics/aggregate-metrics.js';
import { readJsonLines } from '../util/json-lines.js';
import { collectPaths } from './collect-paths.js';
import { rolloutKey } from './resume-state.js';

/** Every row of the given JSONL files, with errors naming file and line. */
export async function readResultRows(files: readonly string[]): Promise<(ResultRow & { _file: string; _line: number })[]> {
  const rows: (ResultRow & { _file: string; _line: number })[] = [];
  for (const file of files) {
    if (!existsSync(file)) throw new ConfigError(`cannot read ${file}: no such file`);
    for await (const { line, text } of readJsonLines(file)) {
      try {
        rows.push({ ...(JSON.parse(text) as ResultRow), _file: file, _line: line });
      } catch (error) {
        throw new ConfigError(`${file}:${line}: not valid JSON (${(error as Error).message})`);
      }
    }
  }
  return rows;
}

/** Rollout rows of several shards: the same key in two places is an error, not something to average twice. */
export function assertUniqueKeys(rows: readonly (ResultRow & { _file: string; _line: number })[]): void {
  const seen = new Map<string, string>();
  for (const row of rows) {
    const key = rolloutKey(row);
    const where = `${row._file}:${row._line}`;
    if (seen.has(key)) throw new ConfigError(`rollout ${key} appears twice: ${seen.get(key)} and ${where}`);
    seen.set(key, where);
  }
}

/** Planned rollouts per task, from the materialized inputs beside each shard (when present). */
export async function expectedRolloutsBeside(files: readonly string[]): Promise<Map<string, Map<number, number>> | undefined> {
  const materialized = files.map((file) => collectPaths(file).materialized).filter((path) => existsSync(path));
  if (materialized.length === 0) return undefined;
  const perAgent = new Map<string, Map<number, number>>();
  for (const row of await readResultRows(materialized)) {
    const agent = (row.agent_ref as { name?: string } | undefined)?.name ?? 'agent';
    const counts = perAgent.get(agent) ?? new Map<number, number>();
    const task = row._ng_task_index as number;
    counts.set(task, (counts.get(task) ?? 0) + 1);
    perAgent.set(agent, counts);
  }
  return perAgent;
}

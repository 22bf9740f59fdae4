import { closeSync, existsSync, ftruncateSync, openSync, readFileSync } from 'node:fs';
import type { MaterializedRow } from './dataset-row.js';

/** A result row's key: (task, rollout). */
export const rolloutKey = (row: Readonly<Record<string, unknown>>) => `${row._ng_task_index}:${row._ng_rollout_index}`;

/**
 * The complete rows of a JSONL file a crash may have cut: a last line without its newline, or one
 * that does not parse, is cut off the file (it was never committed) and reported.
 */
export function repairJsonl(path: string): { rows: Record<string, unknown>[]; repairedBytes: number } {
  if (!existsSync(path)) return { rows: [], repairedBytes: 0 };
  const text = readFileSync(path, 'utf8');
  const rows: Record<string, unknown>[] = [];
  let committed = 0;
  for (let start = 0; start < text.length; ) {
    const end = text.indexOf('\n', start);
    if (end < 0) break;
    const line = text.slice(start, end);
    if (line.trim() !== '') {
      try {
        rows.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        break;
      }
    }
    start = end + 1;
    committed = start;
  }
  const committedBytes = Buffer.byteLength(text.slice(0, committed));
  const repairedBytes = Buffer.byteLength(text) - committedBytes;
  if (repairedBytes > 0) {
    const fd = openSync(path, 'r+');
    ftruncateSync(fd, committedBytes);
    closeSync(fd);
  }
  return { rows, repairedBytes };
}

export interface ResumePlan<T> {
  /** Rollouts still to run, each with its attempt index (0 for a first attempt). */
  remaining: { item: T; attempt: number }[];
  done: number;
  /** Keys whose failures are final: terminal, or out of attempts. */
  givenUp: number;
}

/**
 * What a resume still has to do: keys with a success are done; keys whose failures are terminal or
 * used up `maxAttempts` are kept as failures; every other key runs again, its attempt index being the
 * number of failures recorded for it.
 */
export function resumePlan<T extends { row: MaterializedRow }>(plan: readonly T[], successes: readonly Record<string, unknown>[], failures: readonly Record<string, unknown>[], maxAttempts: number): ResumePlan<T> {
  const done = new Set(successes.map(rolloutKey));
  const attempts = new Map<string, number>();
  const terminal = new Set<string>();
  for (const failure of failures) {
    // A rollout the user interrupted (Ctrl-C) did not fail on its own: it does not use up an attempt.
    if (failure._ng_failure_class === 'aborted') continue;
    const key = rolloutKey(failure);
    attempts.set(key, (attempts.get(key) ?? 0) + 1);
    if (failure._ng_failure_terminal === true) terminal.add(key);
  }
  const remaining: { item: T; attempt: number }[] = [];
  let givenUp = 0;
  for (const item of plan) {
    const key = rolloutKey(item.row);
    if (done.has(key)) continue;
    const attempt = attempts.get(key) ?? 0;
    if (terminal.has(key) || attempt >= maxAttempts) givenUp += 1;
    else remaining.push({ item, attempt });
  }
  return { remaining, done: done.size, givenUp };
}

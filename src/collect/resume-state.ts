import { closeSync, existsSync, fstatSync, ftruncateSync, openSync, readSync } from 'node:fs';
import { ConfigError } from '../core/errors/config-error.js';
import type { RolloutKeys, RowKeys } from '../core/result-row.js';
import { readRowKeys } from '../core/row-reader.js';
import { isZeroTurnRow } from '../core/zero-turn-row.js';

/**
 * (task, rollout) as one exact number when both are in range (a million keys cost a few megabytes,
 * not a million strings), else as a string: caller-stamped task indices can be arbitrarily large.
 */
export function compactKey(row: RolloutKeys): number | string {
  const task = row._ng_task_index;
  const rollout = row._ng_rollout_index;
  return task < 2 ** 31 && rollout < 2 ** 21 ? task * 2 ** 21 + rollout : `${task}:${rollout}`;
}

/**
 * Streams the complete rows of a JSONL file to `visit`, in 1 MiB chunks (any file size, flat memory).
 * Only the end of the file can be cut by a crash: a last line without its newline, or a last line that
 * does not parse, was never committed, and is cut off the file and its size reported. A bad line with
 * good rows after it is corruption, not a crash: it is an error naming the line, and nothing is cut.
 */
export function repairJsonl(path: string, visit: (value: unknown, line: number) => void): { repairedBytes: number } {
  if (!existsSync(path)) return { repairedBytes: 0 };
  const fd = openSync(path, 'r+');
  try {
    const size = fstatSync(fd).size;
    const chunk = Buffer.alloc(1 << 20);
    let pending = Buffer.alloc(0);
    let position = 0;
    let committed = 0;
    let lineNumber = 0;
    let unparsed: { line: number; at: number } | undefined;
    while (position < size) {
      const read = readSync(fd, chunk, 0, chunk.length, position);
      if (read === 0) break;
      position += read;
      pending = Buffer.concat([pending, chunk.subarray(0, read)]);
      for (let newline = pending.indexOf(10); newline >= 0; newline = pending.indexOf(10)) {
        lineNumber += 1;
        const line = pending.subarray(0, newline).toString('utf8');
        if (unparsed && line.trim() !== '') {
          throw new ConfigError(
            `${path}:${unparsed.line} is not valid JSON, but complete rows follow it: the file is corrupt, not cut by a crash. Remove or fix that line, then resume.`,
          );
        }
        if (line.trim() !== '') {
          const value = parseOrUndefined(line);
          if (value === undefined) unparsed = { line: lineNumber, at: committed };
          else visit(value, lineNumber);
        }
        if (!unparsed) committed += newline + 1;
        pending = pending.subarray(newline + 1);
      }
    }
    if (committed < size) ftruncateSync(fd, committed);
    return { repairedBytes: size - committed };
  } finally {
    closeSync(fd);
  }
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** What a resume needs to know of earlier attempts, keyed compactly. */
export class ResumeState {
  readonly #done = new Set<number | string>();
  readonly #attempts = new Map<number | string, number>();
  readonly #terminal = new Set<number | string>();
  #rewardSum = 0;
  #promptTooLong = 0;

  /** A success, its reward summed once per key (a row repeated by hand does not count twice); a prompt that never reached the model has none. */
  addSuccess(row: RowKeys): void {
    const key = compactKey(row);
    if (this.#done.has(key)) return;
    this.#done.add(key);
    if (isZeroTurnRow(row)) this.#promptTooLong += 1;
    else if (typeof row.reward === 'number') this.#rewardSum += row.reward;
  }

  /** A rollout the user interrupted (Ctrl-C) did not fail on its own: it does not use up an attempt. */
  addFailure(row: RowKeys): void {
    if (row._ng_failure_class === 'aborted') return;
    const key = compactKey(row);
    this.#attempts.set(key, (this.#attempts.get(key) ?? 0) + 1);
    if (row._ng_failure_terminal === true) this.#terminal.add(key);
  }

  get done(): number {
    return this.#done.size;
  }

  /** The rewards of the earlier successes: with `done`, what a progress line's mean reward starts from. */
  get rewardSum(): number {
    return this.#rewardSum;
  }

  /** The earlier successes whose prompt never reached the model: done, but not in the mean reward. */
  get promptTooLong(): number {
    return this.#promptTooLong;
  }

  /** The keys without a success that will not be run again: a terminal failure, or `maxAttempts` used up. */
  givenUp(maxAttempts: number): number {
    let count = 0;
    for (const [key, attempts] of this.#attempts) {
      if (!this.#done.has(key) && this.#givesUp(key, attempts, maxAttempts)) count += 1;
    }
    return count;
  }

  /** Skip a done key; give up on a terminal or exhausted one; otherwise run it as attempt n (the failures so far). */
  decide(row: RolloutKeys, maxAttempts: number): { kind: 'done' } | { kind: 'given-up' } | { kind: 'run'; attempt: number } {
    const key = compactKey(row);
    if (this.#done.has(key)) return { kind: 'done' };
    const attempt = this.#attempts.get(key) ?? 0;
    if (this.#givesUp(key, attempt, maxAttempts)) return { kind: 'given-up' };
    return { kind: 'run', attempt };
  }

  /** One rule for what `decide` skips and what `givenUp` counts, so progress matches what runs. */
  #givesUp(key: number | string, attempts: number, maxAttempts: number): boolean {
    return this.#terminal.has(key) || attempts >= maxAttempts;
  }
}

/**
 * Whether `--resume` would run a rollout that just failed so again, by `ResumeState`'s rule: not when
 * terminal, nor when this attempt used up the last of `maxAttempts`; an interrupted one (`aborted`)
 * used up none.
 */
export function wouldRetry(failure: RowKeys, maxAttempts: number): boolean {
  if (failure._ng_failure_terminal === true) return false;
  const used = (failure._ng_attempt_index ?? 0) + (failure._ng_failure_class === 'aborted' ? 0 : 1);
  return used < maxAttempts;
}

/**
 * What earlier attempts of a run left in its result files: each file's last line, if a crash cut it,
 * is repaired first (and reported through `onNotice`).
 */
export function loadResumeState(files: { output: string; failures: string }, onNotice?: (message: string) => void): ResumeState {
  const state = new ResumeState();
  const visits = [
    [files.output, (keys: RowKeys) => state.addSuccess(keys)],
    [files.failures, (keys: RowKeys) => state.addFailure(keys)],
  ] as const;
  for (const [file, add] of visits) {
    const { repairedBytes } = repairJsonl(file, (value, line) => add(readRowKeys(value, `${file}:${line}`)));
    if (repairedBytes > 0) onNotice?.(`repaired ${file}: removed a last line cut by a crash (${repairedBytes} bytes)`);
  }
  return state;
}

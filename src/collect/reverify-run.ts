import { existsSync } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname, basename, extname, join, resolve } from 'node:path';
import { ConfigError } from '../core/errors/config-error.js';
import { recordError, type RecordedError } from '../core/recorded-error.js';
import { readFullRow } from '../core/row-reader.js';
import { deadlineSignal } from '../util/deadline-signal.js';
import { readJsonLines } from '../util/json-lines.js';
import { writeFileAtomic } from '../util/write-file-atomic.js';
import { ReverifyError } from './reverify-error.js';
import { OutputExistsError } from '../core/errors/output-exists-error.js';
import { countLines } from '../util/count-lines.js';
import type { RowVerifier } from './row-verifier.js';

export interface ReverifyOptions {
  /** The saved rollouts (any row schema version the readers take). */
  run: string;
  /** Where the re-scored rows go; the summary and the failures are written beside it. */
  output: string;
  verifier: RowVerifier;
  /** Rows re-scored at once (default 16). */
  concurrency?: number;
  /** Deadline of one row's re-scoring (default 300 s). */
  timeoutMs?: number;
  /** Replace the files an earlier reverify wrote to `output` (by default they are refused: OutputExistsError). */
  overwrite?: boolean;
  signal?: AbortSignal;
}

/** What changed, counted over the run's rows; written as `<stem>_reverify.json`. */
export interface ReverifySummary {
  run: string;
  output: string;
  verifier: string;
  rows: number;
  rose: number;
  fell: number;
  unchanged: number;
  /** Rows that could not be re-scored: in `<stem>_reverify_failures.jsonl`, not in the output. */
  failed: number;
  /** Mean reward before and after, over the rows re-scored. */
  mean_previous_reward: number | null;
  mean_reward: number | null;
}

/** Where `reverify -o OUT` writes beside OUT. */
export function reverifyPaths(output: string) {
  const stem = join(dirname(output), basename(output, extname(output)));
  // `_failures.jsonl` ends the name so every reader that globs a folder for rollouts skips it.
  return { output, summary: `${stem}_reverify.json`, failures: `${stem}_reverify_failures.jsonl` };
}

type Outcome =
  | { row: Record<string, unknown>; previous: number; reward: number }
  | { failure: Record<string, unknown> & { line: number; error: RecordedError } };

/**
 * Re-scores every row of a run with a verifier, no model called: each written again with `reward` the
 * new score (what aggregate and trainers read) and `previous_reward` the saved one, in the run's order.
 * A row that cannot be re-scored (unreadable, a failure row, a verifier error or timeout) is a typed
 * record in the failures file; the others go on.
 */
export async function reverifyRun(options: ReverifyOptions): Promise<ReverifySummary> {
  try {
    return await reverifyInto(options);
  } finally {
    await options.verifier.close();
  }
}

async function reverifyInto(options: ReverifyOptions): Promise<ReverifySummary> {
  if (!existsSync(options.run)) throw new ConfigError(`no run at ${options.run}: give a rollout file written by gymnast collect`);
  if (resolve(options.run) === resolve(options.output))
    throw new ConfigError(`-o ${options.output} is the run itself: write the re-scored rows to another file`);
  const paths = reverifyPaths(options.output);
  const summary: ReverifySummary = {
    run: options.run,
    output: options.output,
    verifier: options.verifier.name,
    rows: 0,
    rose: 0,
    fell: 0,
    unchanged: 0,
    failed: 0,
    mean_previous_reward: null,
    mean_reward: null,
  };
  const totals = { previous: 0, reward: 0 };
  await mkdir(dirname(resolve(options.output)), { recursive: true });
  if (!options.overwrite) await refuseEarlierOutput(paths);
  // Without --overwrite the files are made, never truncated: a second reverify to the same -o started at once is refused too.
  const flags = options.overwrite ? 'w' : 'wx';
  const rows = await openOutput(options.output, flags);
  try {
    const failures = await openOutput(paths.failures, flags);
    try {
      await rescoreRows(options, summary, totals, { rows, failures });
    } finally {
      await failures.close();
    }
  } finally {
    await rows.close();
  }
  const scored = summary.rows - summary.failed;
  if (scored > 0) {
    summary.mean_previous_reward = totals.previous / scored;
    summary.mean_reward = totals.reward / scored;
  }
  await writeFileAtomic(paths.summary, `${JSON.stringify(summary, null, 2)}\n`);
  return summary;
}

/** Every row of the run through the verifier, a window of them in flight, written in the run's order as the oldest finishes. */
async function rescoreRows(
  options: ReverifyOptions,
  summary: ReverifySummary,
  totals: { previous: number; reward: number },
  files: { rows: FileHandle; failures: FileHandle },
): Promise<void> {
  const record = async (outcome: Outcome) => {
    summary.rows += 1;
    if ('failure' in outcome) {
      summary.failed += 1;
      return write(files.failures, outcome.failure);
    }
    totals.previous += outcome.previous;
    totals.reward += outcome.reward;
    if (outcome.reward > outcome.previous) summary.rose += 1;
    else if (outcome.reward < outcome.previous) summary.fell += 1;
    else summary.unchanged += 1;
    return write(files.rows, outcome.row);
  };
  const concurrency = options.concurrency ?? 16;
  const inFlight: Promise<Outcome>[] = [];
  try {
    for await (const { line, text } of readJsonLines(options.run, options.signal)) {
      if (text.trim() === '') continue;
      inFlight.push(rescoreLine(text, `${options.run}:${line}`, line, options));
      if (inFlight.length >= concurrency) await record(await inFlight.shift()!);
    }
    for (const outcome of inFlight.splice(0)) await record(await outcome);
  } finally {
    // Rows still in flight when reading or writing failed end before the files close.
    await Promise.allSettled(inFlight);
  }
}

async function rescoreLine(text: string, where: string, line: number, options: ReverifyOptions): Promise<Outcome> {
  let keys: Record<string, unknown> = {};
  const deadline = deadlineSignal(options.signal, options.timeoutMs ?? 300_000);
  try {
    const read = readFullRow(JSON.parse(text), where);
    keys = { _ng_task_index: read.row._ng_task_index, _ng_rollout_index: read.row._ng_rollout_index };
    if (read.kind === 'failure') throw new ReverifyError(`a failure row (${read.row._ng_failure_class}) has no reward to re-score`);
    const rescore = await options.verifier.verify(read.row, deadline.signal);
    const previous = read.row.reward;
    // The saved row as it was written, its reward replaced; the old one kept beside it.
    const row = { ...(JSON.parse(text) as Record<string, unknown>), ...rescore, previous_reward: previous };
    return { row, previous, reward: rescore.reward };
  } catch (error) {
    if (options.signal?.aborted) throw error;
    return { failure: { line, ...keys, error: recordError(error) } };
  } finally {
    deadline.dispose();
  }
}

async function write(file: FileHandle, value: unknown): Promise<void> {
  await file.write(`${JSON.stringify(value)}\n`);
}

/** An earlier reverify's files at this -o: refused, with their rows counted, rather than erased. */
async function refuseEarlierOutput(paths: ReturnType<typeof reverifyPaths>): Promise<void> {
  const found = [paths.output, paths.failures, paths.summary].filter((path) => existsSync(path));
  if (found.length === 0) return;
  const files = await Promise.all(found.map(async (path) => ({ path, rows: await countLines(path) })));
  throw new OutputExistsError(
    files,
    `${found.join(', ')} ${found.length === 1 ? 'exists' : 'exist'}: an earlier reverify's output; pass --overwrite to replace it, or another -o`,
  );
}

async function openOutput(path: string, flags: 'w' | 'wx'): Promise<FileHandle> {
  try {
    return await open(path, flags);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new OutputExistsError(
        [{ path, rows: 0 }],
        `${path} was made by another reverify as this one started: pass --overwrite to replace it, or another -o`,
      );
    throw error;
  }
}

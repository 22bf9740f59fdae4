import { ConfigError } from '../core/errors/config-error.js';
import type { MaterializedRow } from '../core/result-row.js';
import { fileErrorReason } from '../util/file-error-reason.js';
import { overlongMessage, readJsonLineEntries, type JsonLine, type OverlongLine } from '../util/json-lines.js';
import { InvalidInputError, type RowIssue } from './row-error.js';
import type { RowPlanner } from './row-planner.js';

/** Where the plan comes from: the input file, its first `limit` lines. */
export interface PlanSource {
  input: string;
  limit?: number;
  signal?: AbortSignal;
}

/** Bad lines kept with their details; the rest are counted. */
const MAX_REPORTED_ISSUES = 200;

/**
 * The longest input line taken, in characters: far beyond any real row (a prompt of a million tokens
 * is a few MiB), and a line is held whole while it is checked, so a file without newlines must not be.
 */
const MAX_ROW_LENGTH = 64 * 1024 * 1024;

/** Pass 1 over the input: every bad line, all reported together before any work. */
export async function checkInput(source: PlanSource, planner: RowPlanner): Promise<void> {
  const issues: RowIssue[] = [];
  let count = 0;
  let rows = 0;
  for await (const entry of inputLines(source)) {
    rows += 1;
    for (const issue of checkLine(source.input, entry, planner)) {
      count += 1;
      if (issues.length < MAX_REPORTED_ISSUES) issues.push(issue);
    }
  }
  if (count > 0) throw new InvalidInputError(issues, MAX_REPORTED_ISSUES, count);
  if (rows === 0) throw new ConfigError(`${source.input}: no rows to run (the file is empty or has only blank lines)`);
}

/** A line's issues; a line the planner fails on in any other way is one issue too, so the other lines still get checked. */
function checkLine(file: string, entry: JsonLine | OverlongLine, planner: RowPlanner): RowIssue[] {
  if ('overlong' in entry) return [{ file, line: entry.line, field: '', message: overlongMessage(entry.length, MAX_ROW_LENGTH) }];
  try {
    return planner.check(entry.line, entry.text);
  } catch (error) {
    return [{ file, line: entry.line, field: '', message: `could not be checked: ${error instanceof Error ? error.message : String(error)}` }];
  }
}

/** Pass 2: the planned rollouts, line by line (only after `checkInput` passed). */
export async function* plannedRows(source: PlanSource, planner: RowPlanner): AsyncGenerator<MaterializedRow> {
  for await (const entry of inputLines(source)) {
    if ('overlong' in entry) throw new ConfigError(`${source.input}:${entry.line} changed since it was checked`);
    yield* planner.expand(entry.line, entry.text);
  }
}

/** The input's lines; a file that cannot be read is a ConfigError naming it, not Node's bare ENOENT. */
async function* inputLines({ input, limit, signal }: PlanSource): AsyncGenerator<JsonLine | OverlongLine> {
  try {
    for await (const entry of readJsonLineEntries(input, { maxLineLength: MAX_ROW_LENGTH, ...(signal ? { signal } : {}) })) {
      if (limit !== undefined && entry.line > limit) return;
      yield entry;
    }
  } catch (error) {
    const reason = fileErrorReason(error);
    if (reason === undefined) throw error;
    throw new ConfigError(`cannot read input ${input}: ${reason}`, { cause: error });
  }
}

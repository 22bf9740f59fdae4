import { ConfigError } from '../core/errors/config-error.js';
import { hasKind } from '../core/errors/has-kind.js';
import type { MaterializedRow } from '../core/result-row.js';
import { fileErrorReason } from '../util/file-error-reason.js';
import { readJsonLineEntries, type InvalidUtf8Line, type JsonLine, type OverlongLine } from '../util/json-lines.js';
import { MEGABYTE } from './collect-settings.js';
import { InvalidInputError, type RowIssue } from './row-error.js';
import { readMaterializedRow } from '../core/row-reader.js';
import { jsonRows } from './result-files.js';
import { unknownAgent, type RowPlanner } from './row-planner.js';

/** Where the plan comes from: the input file, its first `limit` lines, none longer than `maxLineBytes`. */
export interface PlanSource {
  input: string;
  limit?: number;
  maxLineBytes: number;
  signal?: AbortSignal;
}

/** Bad lines kept with their details; the rest are counted. */
const MAX_REPORTED_ISSUES = 200;

/** Pass 1 over the input: every bad line, all reported together before any work. */
export async function checkInput(source: PlanSource, planner: RowPlanner): Promise<void> {
  const issues: RowIssue[] = [];
  let count = 0;
  let rows = 0;
  for await (const entry of inputLines(source)) {
    rows += 1;
    for (const issue of checkLine(source, entry, planner)) {
      count += 1;
      if (issues.length < MAX_REPORTED_ISSUES) issues.push(issue);
    }
  }
  const overrides = planner
    .overrideProblems()
    .map(({ key, message, rows: failed }) => `--set ${key}: ${message} (${failed === rows ? `all ${rows} rows` : `${failed} of ${rows} rows`})`);
  if (count + overrides.length > 0) throw new InvalidInputError(issues, MAX_REPORTED_ISSUES, count + overrides.length, overrides);
  if (rows === 0) throw new ConfigError(`${source.input}: no rows to run (the file is empty or has only blank lines)`);
}

/** A line's issues; a line the planner fails on in any other way is one issue too, so the other lines still get checked. */
function checkLine(source: PlanSource, entry: JsonLine | OverlongLine | InvalidUtf8Line, planner: RowPlanner): RowIssue[] {
  const file = source.input;
  if ('overlong' in entry) return [{ file, line: entry.line, field: '', message: overlongMessage(entry.bytes, source.maxLineBytes) }];
  if ('invalidUtf8' in entry) return [{ file, line: entry.line, field: '', message: invalidUtf8Message(entry) }];
  try {
    return planner.check(entry);
  } catch (error) {
    return [{ file, line: entry.line, field: '', message: `could not be checked: ${error instanceof Error ? error.message : String(error)}` }];
  }
}

/**
 * The materialized inputs of a run gymnast did not record (NeMo Gym's): the plan as it stands, since
 * there is no input to plan it from again. Every row is checked as an input line is (a materialized
 * row, an agent that runs it, what that agent needs), all problems reported together before any work;
 * resolves with how many rollouts it plans.
 */
export async function checkMaterialized(file: string, planner: RowPlanner, signal?: AbortSignal): Promise<number> {
  const issues: RowIssue[] = [];
  let count = 0;
  let rows = 0;
  for await (const { value, line, where } of jsonRows(file, signal)) {
    rows += 1;
    for (const issue of plannedRowIssues(value, file, line, where, planner)) {
      count += 1;
      if (issues.length < MAX_REPORTED_ISSUES) issues.push(issue);
    }
  }
  if (count > 0) throw new InvalidInputError(issues, MAX_REPORTED_ISSUES, count);
  if (rows === 0) throw new ConfigError(`${file}: no planned rollouts to resume (the file is empty)`);
  return rows;
}

function plannedRowIssues(value: unknown, file: string, line: number, where: string, planner: RowPlanner): RowIssue[] {
  let row: ReturnType<typeof readMaterializedRow>;
  try {
    row = readMaterializedRow(value, where);
  } catch (error) {
    if (!hasKind(error, 'invalid-row')) throw error;
    return [{ file, line, field: error.field, message: error.reason }];
  }
  const agent = planner.agent(row.agent_ref.name);
  if (!agent) return [unknownAgent(row.agent_ref.name, file, line)];
  return agent.check(row).map((issue) => ({ ...issue, file, line }));
}

/** Pass 2: the planned rollouts, line by line (only after `checkInput` passed). */
export async function* plannedRows(source: PlanSource, planner: RowPlanner): AsyncGenerator<MaterializedRow> {
  for await (const entry of inputLines(source)) {
    if (!('text' in entry)) throw new ConfigError(`${source.input}:${entry.line} changed since it was checked`);
    yield* planner.expand(entry);
  }
}

/** The input's lines; a file that cannot be read is a ConfigError naming it, not Node's bare ENOENT. */
async function* inputLines({ input, limit, maxLineBytes, signal }: PlanSource): AsyncGenerator<JsonLine | OverlongLine | InvalidUtf8Line> {
  try {
    for await (const entry of readJsonLineEntries(input, { maxLineBytes, checkUtf8: true, ...(signal ? { signal } : {}) })) {
      if (limit !== undefined && entry.line > limit) return;
      yield entry;
    }
  } catch (error) {
    const reason = fileErrorReason(error);
    if (reason === undefined) throw error;
    throw new ConfigError(`cannot read input ${input}: ${reason}`, { cause: error });
  }
}

/** The size in MB to a tenth, and in bytes when that would read as being at the limit. */
function overlongMessage(bytes: number, limit: number): string {
  const megabytes = (bytes / MEGABYTE).toFixed(1);
  const size = Number(megabytes) > limit / MEGABYTE ? `${megabytes} MB` : `${megabytes} MB (${bytes} bytes)`;
  return `line is ${size}, over the limit of ${Number((limit / MEGABYTE).toPrecision(4))} MB (--max-line-mb raises it)`;
}

/** Where the bad byte is, as a line offset (to find it in the row) and a file offset (for `xxd -s`, `dd skip=`). */
function invalidUtf8Message({ lineOffset, fileOffset, byte }: InvalidUtf8Line): string {
  const hex = byte.toString(16).toUpperCase().padStart(2, '0');
  return `not valid UTF-8: byte 0x${hex} at byte offset ${lineOffset} of the line (${fileOffset} of the file; offsets count from 0)`;
}

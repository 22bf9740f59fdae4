import type { MaterializedRow } from '../core/result-row.js';
import { readJsonLines } from '../util/json-lines.js';
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

/** Pass 1 over the input: every bad line, all reported together before any work. */
export async function checkInput(source: PlanSource, planner: RowPlanner): Promise<void> {
  const issues: RowIssue[] = [];
  let count = 0;
  for await (const { line, text } of inputLines(source)) {
    for (const issue of planner.check(line, text)) {
      count += 1;
      if (issues.length < MAX_REPORTED_ISSUES) issues.push(issue);
    }
  }
  if (count > 0) throw new InvalidInputError(issues, MAX_REPORTED_ISSUES, count);
}

/** Pass 2: the planned rollouts, line by line (only after `checkInput` passed). */
export async function* plannedRows(source: PlanSource, planner: RowPlanner): AsyncGenerator<MaterializedRow> {
  for await (const { line, text } of inputLines(source)) yield* planner.expand(line, text);
}

async function* inputLines({ input, limit, signal }: PlanSource) {
  for await (const line of readJsonLines(input, signal)) {
    if (limit !== undefined && line.line > limit) return;
    yield line;
  }
}

import type { MaterializedRow } from '../core/result-row.js';
import { RowPlanner, type NumRepeats, type PlannerOptions } from './row-planner.js';
import type { RowIssue } from './row-error.js';
import type { JsonLine } from '../util/json-lines.js';

export type { NumRepeats };
export type ExpandOptions = Omit<PlannerOptions, 'resolveAgents'>;

/** A line of the input: its number and raw text (and whether it ends the file without a newline). */
export type SourceLine = JsonLine;

export interface Expansion {
  rows: MaterializedRow[];
  issues: RowIssue[];
  unusedRepeatAgents: string[];
}

/**
 * NeMo Gym's expansion of a small input held in memory, sorted by (task, rollout) as NeMo Gym's
 * materialized file is. `gymnast collect` streams the same `RowPlanner` over files of any size.
 */
export function expandRows(sources: readonly SourceLine[], options: ExpandOptions): Expansion {
  const planner = new RowPlanner({ ...options, resolveAgents: false });
  const issues = sources.flatMap((source) => planner.check(source));
  const valid = sources.filter(({ line, text }) => !issues.some((issue) => issue.line === line) && text !== '');
  const rows = valid.flatMap((source) => planner.expand(source));
  rows.sort((a, b) => a._ng_task_index - b._ng_task_index || a._ng_rollout_index - b._ng_rollout_index);
  return { rows, issues, unusedRepeatAgents: planner.unusedRepeatAgents() };
}

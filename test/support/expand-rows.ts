import type { Agent } from '../../src/collect/agent.js';
import { RowPlanner, type PlannerOptions } from '../../src/collect/row-planner.js';
import type { RowIssue } from '../../src/collect/row-error.js';
import type { MaterializedRow } from '../../src/core/result-row.js';
import type { JsonLine } from '../../src/util/json-lines.js';

/** Expansion alone: every agent is accepted, whatever its name. */
export type ExpandOptions = Omit<PlannerOptions, 'agents'>;

/** A line of the input: its number and raw text (and whether it ends the file without a newline). */
export type SourceLine = JsonLine;

export interface Expansion {
  rows: MaterializedRow[];
  issues: RowIssue[];
  unusedRepeatAgents: string[];
}

/** Agents of these names that accept every row and run none: for specs of expansion alone. */
export function acceptingAgents(names: Iterable<string>): ReadonlyMap<string, Agent> {
  return new Map([...names].map((name) => [name, { name, check: () => [], run: () => Promise.reject(new Error('expansion only')) }]));
}

/**
 * NeMo Gym's expansion of a small input held in memory, sorted by (task, rollout) as NeMo Gym's
 * materialized file is, with an accepting agent for every name the rows and options give.
 * `gymnast collect` streams the same `RowPlanner` over files of any size.
 */
export function expandRows(sources: readonly SourceLine[], options: ExpandOptions): Expansion {
  const planner = new RowPlanner({ ...options, agents: acceptingAgents(agentNames(sources, options)) });
  const issues = sources.flatMap((source) => planner.check(source));
  const valid = sources.filter(({ line, text }) => !issues.some((issue) => issue.line === line) && text !== '');
  const rows = valid.flatMap((source) => planner.expand(source));
  rows.sort((a, b) => a._ng_task_index - b._ng_task_index || a._ng_rollout_index - b._ng_rollout_index);
  return { rows, issues, unusedRepeatAgents: planner.unusedRepeatAgents() };
}

/** `--agent` and every `agent_ref.name` of the rows that parse. */
function agentNames(sources: readonly SourceLine[], options: ExpandOptions): Set<string> {
  const names = new Set(options.agent === undefined ? [] : [options.agent]);
  for (const { text } of sources) {
    try {
      const name = (JSON.parse(text) as { agent_ref?: { name?: unknown } } | null)?.agent_ref?.name;
      if (typeof name === 'string') names.add(name);
    } catch {
      // Not JSON: the planner reports the line.
    }
  }
  return names;
}

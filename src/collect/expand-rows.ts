import { ConfigError } from '../core/errors/config-error.js';
import type { DatasetRow, MaterializedRow } from './dataset-row.js';
import type { RowIssue } from './row-error.js';

/** `--num-repeats`: one count for every agent, or a count per agent with an optional `_default`. */
export type NumRepeats = number | Readonly<Record<string, number>>;

export interface ExpandOptions {
  file: string;
  /** The agent for rows without an `agent_ref` (`--agent`). */
  agent?: string;
  numRepeats?: NumRepeats;
  /** Put `{"seed": rollout_index}` in `responses_create_params.metadata.extra_body` (a JSON string), as NeMo Gym does. */
  addSeed?: boolean;
  /** `--set key=value` overrides of `responses_create_params`; dotted keys reach into nested objects. */
  overrides?: Readonly<Record<string, unknown>>;
}

/** A line read from the input, already parsed and validated as a row. */
export interface SourceRow {
  line: number;
  /** The raw line text: byte-identical lines are one task, as in NeMo Gym. */
  text: string;
  row: DatasetRow;
}

export interface Expansion {
  rows: MaterializedRow[];
  issues: RowIssue[];
  /** Agents in a repeat map that no row used (NeMo Gym warns about them). */
  unusedRepeatAgents: string[];
}

/**
 * NeMo Gym's expansion, exactly: task indices are assigned from the raw line (identical lines share a
 * task and pool their rollouts), caller-stamped `_ng_task_index` values are kept, each row is repeated
 * k times in "aabbcc" order with `_ng_rollout_index` counted per task, and the result is sorted by
 * (task, rollout). Rows with no agent, or an agent without a repeat count, are all reported together.
 */
export function expandRows(sources: readonly SourceRow[], options: ExpandOptions): Expansion {
  const issues: RowIssue[] = [];
  const taskOfLine = new Map<string, number>();
  const nextRollout = new Map<number, number>();
  const usedAgents = new Set<string>();
  let nextTask = 0;
  const rows: MaterializedRow[] = [];

  for (const { line, text, row } of sources) {
    const agent = row.agent_ref?.name ?? options.agent;
    if (agent === undefined) {
      issues.push({ file: options.file, line, field: 'agent_ref.name', message: 'no agent: give the row an agent_ref or pass --agent' });
      continue;
    }
    const repeats = repeatsFor(agent, options.numRepeats ?? 1);
    if (repeats === undefined) {
      issues.push({ file: options.file, line, field: 'agent_ref.name', message: `agent "${agent}" has no entry in --num-repeats and there is no _default` });
      continue;
    }
    usedAgents.add(agent);
    let task = row._ng_task_index;
    if (task === undefined) {
      task = taskOfLine.get(text) ?? nextTask++;
      taskOfLine.set(text, task);
    }
    for (let i = 0; i < repeats; i++) {
      const rollout = nextRollout.get(task) ?? 0;
      nextRollout.set(task, rollout + 1);
      rows.push(materialize(row, agent, task, rollout, options));
    }
  }
  const repeatMap = typeof options.numRepeats === 'object' ? options.numRepeats : {};
  const unusedRepeatAgents = Object.keys(repeatMap).filter((name) => name !== '_default' && !usedAgents.has(name));
  rows.sort((a, b) => a._ng_task_index - b._ng_task_index || a._ng_rollout_index - b._ng_rollout_index);
  return { rows, issues, unusedRepeatAgents };
}

function repeatsFor(agent: string, numRepeats: NumRepeats): number | undefined {
  const count = typeof numRepeats === 'number' ? numRepeats : (numRepeats[agent] ?? numRepeats._default);
  if (count !== undefined && (!Number.isInteger(count) || count < 1)) throw new ConfigError(`--num-repeats must be a whole number of at least 1, got ${count}${typeof numRepeats === 'number' ? '' : ` for ${agent}`}`);
  return count;
}

function materialize(row: DatasetRow, agent: string, task: number, rollout: number, options: ExpandOptions): MaterializedRow {
  const params: Record<string, unknown> = structuredClone(row.responses_create_params ?? {});
  for (const [key, value] of Object.entries(options.overrides ?? {})) setPath(params, key.split('.'), value);
  if (options.addSeed) {
    const metadata = (typeof params.metadata === 'object' && params.metadata !== null ? params.metadata : {}) as Record<string, unknown>;
    params.metadata = { ...metadata, extra_body: JSON.stringify({ seed: rollout }) };
  }
  return {
    ...structuredClone(row),
    responses_create_params: params,
    agent_ref: { ...(row.agent_ref ?? {}), name: agent },
    _ng_task_index: task,
    _ng_rollout_index: rollout,
  };
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  const [head, ...rest] = path;
  if (head === undefined) return;
  if (rest.length === 0) {
    target[head] = value;
    return;
  }
  const child = target[head];
  const next = typeof child === 'object' && child !== null && !Array.isArray(child) ? (child as Record<string, unknown>) : {};
  target[head] = next;
  setPath(next, rest, value);
}

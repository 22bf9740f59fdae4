import { AmbiguousTasksError } from '../core/errors/ambiguous-tasks-error.js';
import { MaterializedRow } from '../core/result-row.js';
import { NumberList } from '../metrics/number-list.js';
import { RolloutKeyList } from '../metrics/rollout-key-list.js';
import { isRecord } from '../util/is-record.js';
import { readJsonLines } from '../util/json-lines.js';
import { valueDigest } from '../util/value-digest.js';
import { promptPrefixes } from './prompt-prefixes.js';

const HINT = "give the rows _ng_task_index and _ng_rollout_index, or put the run's materialized inputs beside the file";

/**
 * Fields that differ between repeats of one task by design, so rows sharing a prompt may differ in
 * them: what the rollout produced (the response, the reward, the extracted answer, and any number or
 * boolean, NeMo Gym's metric columns), the request (its prompt is compared on its own, the rest may
 * carry a seed per repeat) and the bookkeeping.
 */
const OUTCOME_FIELDS = new Set(['response', 'reward', 'extracted_answer', 'responses_create_params', 'agent_ref']);

/** A task met by its prompt (no materialized inputs): its number, rows so far, fields and first row. */
interface PromptTask {
  task: number;
  rollouts: number;
  fields: Map<string, string>;
  where: string;
}

/** A task of the materialized inputs: its agent, how many rollouts it plans, how many rows matched it. */
interface PlannedTask {
  task: number;
  agent: string;
  planned: number;
  matched: number;
  fields: Map<string, string>;
  firstMatch?: string;
}

/** The agent of every planned rollout, for stored rows that do not name theirs. */
class PlannedAgents {
  readonly #keys = new RolloutKeyList();
  readonly #agents = new NumberList();
  readonly #names: string[] = [];

  add(row: MaterializedRow): void {
    let agent = this.#names.indexOf(row.agent_ref.name);
    if (agent === -1) agent = this.#names.push(row.agent_ref.name) - 1;
    this.#agents.set(this.#keys.add(row._ng_task_index, row._ng_rollout_index), agent);
  }

  of(task: unknown, rollout: unknown): string | undefined {
    if (typeof task !== 'number' || typeof rollout !== 'number') return undefined;
    const position = this.#keys.find(task, rollout);
    return position === -1 ? undefined : this.#names[this.#agents.get(position)];
  }
}

/** The materialized inputs' tasks by the digest of their prompt. */
class PlannedTasks {
  readonly #byTask = new Map<number, PlannedTask>();
  readonly #byPrompt = new Map<string, PlannedTask[]>();

  add(row: MaterializedRow): void {
    const found = this.#byTask.get(row._ng_task_index);
    if (found) {
      found.planned += 1;
      return;
    }
    const task: PlannedTask = {
      task: row._ng_task_index,
      agent: row.agent_ref.name,
      planned: 1,
      matched: 0,
      fields: fieldDigests(row, (name) => !isBookkeeping(name)),
    };
    this.#byTask.set(task.task, task);
    const prompt = promptPrefixes(row.responses_create_params).at(-1)!;
    const tasks = this.#byPrompt.get(prompt);
    if (tasks) tasks.push(task);
    else this.#byPrompt.set(prompt, [task]);
  }

  /** The tasks whose prompt starts the row's, for the row's agent, whose task fields the row echoes unchanged. */
  candidates(row: Record<string, unknown>): PlannedTask[] {
    const agent = agentOf(row);
    const found: PlannedTask[] = [];
    for (const prefix of promptPrefixes(row.responses_create_params)) {
      for (const task of this.#byPrompt.get(prefix) ?? []) if ((agent === undefined || agent === task.agent) && echoes(row, task.fields)) found.push(task);
    }
    return found;
  }
}

/**
 * Which task and rollout each stored row is, by NeMo Gym's rule: its `_ng_task_index` and
 * `_ng_rollout_index`; for older files without them, its input row, as NeMo Gym's collection numbers
 * tasks (nemo_gym/rollout_collection.py: identical input rows share a task index, rollouts count up
 * within it). The input row is the run's materialized inputs when they are beside the file, matched
 * by prompt, agent and task fields; else the prompt itself, with the agent. Rows whose task cannot be
 * told are an `AmbiguousTasksError` naming them and why, never a guess: NeMo Gym reads a missing index
 * as 0 (nemo_gym/reward_profile.py, `compute_aggregate_metrics`) and then refuses the duplicate keys.
 * A row without `agent_ref` gets its planned rollout's. Rows with a `schema_version` are gymnast's
 * own, keyed by schema, and pass as they are; `aggregate` and `health` both read rows through this.
 */
export class TaskIdentity {
  readonly #materialized: readonly string[];
  readonly #signal: AbortSignal | undefined;
  /** The first row's keyedness: a pass reads all rows with indices or all without. */
  #first: { keyed: boolean; where: string } | undefined;
  readonly #promptTasks = new Map<string, PromptTask>();
  #agents: PlannedAgents | Promise<PlannedAgents> | undefined;
  #tasks: PlannedTasks | Promise<PlannedTasks> | undefined;

  /** `materialized`: the run's materialized inputs, read only when a row lacks its indices or agent. */
  constructor(materialized: readonly string[] = [], signal?: AbortSignal) {
    this.#materialized = materialized;
    this.#signal = signal;
  }

  /** The row with its keys and agent as NeMo Gym has them; a promise only while the plan is first read. */
  identify(value: unknown, where: string): unknown {
    if (!isRecord(value)) return value;
    // gymnast's own rows (with a schema_version) carry their keys by schema, which refuses one without them.
    const own = 'schema_version' in value;
    if (!this.#keyed(own || hasKeys(value, where), where))
      return this.#materialized.length === 0 ? this.#byItsPrompt(value, where) : this.#byPlannedInput(value, where);
    return own || agentOf(value) !== undefined || this.#materialized.length === 0 ? value : this.#withPlannedAgent(value);
  }

  /** `keyed`, once it agrees with the pass's first row. */
  #keyed(keyed: boolean, where: string): boolean {
    this.#first ??= { keyed, where };
    if (this.#first.keyed !== keyed) {
      throw new AmbiguousTasksError(
        where,
        `${keyed ? 'has' : 'has no'} _ng_task_index and _ng_rollout_index, ${this.#first.where} ${keyed ? 'has none' : 'has them'}: rows with and without NeMo Gym's indices cannot share one numbering of tasks`,
      );
    }
    return keyed;
  }

  #withPlannedAgent(value: Record<string, unknown>): unknown {
    const named = (agents: PlannedAgents) => {
      const name = agents.of(value._ng_task_index, value._ng_rollout_index);
      return name === undefined ? value : { ...value, agent_ref: { name } };
    };
    this.#agents ??= this.#readPlan(new PlannedAgents()).then((agents) => (this.#agents = agents));
    return this.#agents instanceof Promise ? this.#agents.then(named) : named(this.#agents);
  }

  /** Without materialized inputs, NeMo Gym's rule on what is left of the input row: its prompt and agent. */
  #byItsPrompt(value: Record<string, unknown>, where: string): unknown {
    const prefixes = promptPrefixes(value.responses_create_params);
    if (prefixes.length === 1)
      throw new AmbiguousTasksError(
        where,
        `has no prompt (no input or instructions in responses_create_params) and no _ng_task_index: which task it ran cannot be told; ${HINT}`,
      );
    const key = valueDigest(agentOf(value) ?? null, prefixes.at(-1));
    const fields = fieldDigests(value, (name, field) => !isOutcome(name, field));
    const found = this.#promptTasks.get(key);
    if (!found) {
      const task = this.#promptTasks.size;
      this.#promptTasks.set(key, { task, rollouts: 1, fields, where });
      return withKeys(value, task, 0);
    }
    const differing = [...new Set([...found.fields.keys(), ...fields.keys()])].filter((name) => found.fields.get(name) !== fields.get(name)).sort();
    if (differing.length > 0) {
      throw new AmbiguousTasksError(
        where,
        `has the prompt of ${found.where} but another ${differing.join(', ')}: whether they are repeats of one task or different tasks cannot be told; ${HINT}`,
      );
    }
    return withKeys(value, found.task, found.rollouts++);
  }

  #byPlannedInput(value: Record<string, unknown>, where: string): unknown {
    const matched = (tasks: PlannedTasks) => {
      const found = tasks.candidates(value);
      const files = this.#materialized.join(', ');
      if (found.length === 0) throw new AmbiguousTasksError(where, `matches no row of ${files}: none has its prompt, agent and task fields`);
      if (found.length > 1) {
        const list = found.map((task) => task.task).join(', ');
        throw new AmbiguousTasksError(
          where,
          `matches tasks ${list} of ${files} alike (the same prompt, agent and task fields): which one it ran cannot be told; give the rows _ng_task_index and _ng_rollout_index`,
        );
      }
      const [task] = found as [PlannedTask];
      if (task.matched === task.planned)
        throw new AmbiguousTasksError(where, `is one row more of task ${task.task} than ${files} plans (${task.planned}; the first was ${task.firstMatch})`);
      task.firstMatch ??= where;
      const keyed = withKeys(value, task.task, task.matched++);
      return agentOf(value) === undefined ? { ...keyed, agent_ref: { name: task.agent } } : keyed;
    };
    this.#tasks ??= this.#readPlan(new PlannedTasks()).then((tasks) => (this.#tasks = tasks));
    return this.#tasks instanceof Promise ? this.#tasks.then(matched) : matched(this.#tasks);
  }

  /**
   * Every planned rollout of the materialized inputs into `into`. A line that is not a planned
   * rollout is left out: the pass that reads the plan reports it (aggregate refuses it, health flags it).
   */
  async #readPlan<T extends { add(row: MaterializedRow): void }>(into: T): Promise<T> {
    for (const file of this.#materialized) {
      for await (const { text } of readJsonLines(file, this.#signal)) {
        const planned = MaterializedRow.safeParse(parsed(text));
        if (planned.success) into.add(planned.data);
      }
    }
    return into;
  }
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Whether the row has both of NeMo Gym's indices; one without the other is an error. */
function hasKeys(row: Record<string, unknown>, where: string): boolean {
  const [task, rollout] = ['_ng_task_index' in row, '_ng_rollout_index' in row];
  if (task !== rollout)
    throw new AmbiguousTasksError(
      where,
      `has ${task ? '_ng_task_index but no _ng_rollout_index' : '_ng_rollout_index but no _ng_task_index'}: NeMo Gym writes both or neither`,
    );
  return task;
}

function withKeys(value: Record<string, unknown>, task: number, rollout: number): Record<string, unknown> {
  return { ...value, _ng_task_index: task, _ng_rollout_index: rollout };
}

/** The row's agent name, when it names one. */
function agentOf(row: Record<string, unknown>): string | undefined {
  const agent = row.agent_ref;
  return isRecord(agent) && typeof agent.name === 'string' ? agent.name : undefined;
}

/** The digest of each field `keep` takes, null fields left out (pydantic echoes an unset field as null). */
function fieldDigests(row: Record<string, unknown>, keep: (name: string, value: unknown) => boolean): Map<string, string> {
  const digests = new Map<string, string>();
  for (const [name, value] of Object.entries(row)) if (value !== null && value !== undefined && keep(name, value)) digests.set(name, valueDigest(value));
  return digests;
}

/** Whether the row holds every planned task field it has at all unchanged (an agent echoes only the fields its verifier reads). */
function echoes(row: Record<string, unknown>, fields: Map<string, string>): boolean {
  for (const [name, digest] of fields) {
    const value = row[name];
    if (value !== null && value !== undefined && valueDigest(value) !== digest) return false;
  }
  return true;
}

const isBookkeeping = (name: string) => name === 'responses_create_params' || name === 'agent_ref' || name.startsWith('_ng_');

const isOutcome = (name: string, value: unknown) =>
  OUTCOME_FIELDS.has(name) || name.startsWith('_ng_') || typeof value === 'number' || typeof value === 'boolean';

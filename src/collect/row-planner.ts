import { createHash } from 'node:crypto';
import { ConfigError } from '../core/errors/config-error.js';
import { HashTable64 } from '../util/hash-table-64.js';
import { isRecord } from '../util/is-record.js';
import { prototypeKeyProblem } from '../util/prototype-key-problem.js';
import { TaskCounter } from '../util/task-counter.js';
import { builtinEnvironments } from '../environments/registry.js';
import type { Agent } from './agent.js';
import { builtinAgent } from './agent.js';
import { FailureRow, MaterializedRow, ResultRow } from '../core/result-row.js';
import type { DatasetRow } from './dataset-row.js';
import { readDatasetRow } from './read-dataset-row.js';
import { collectDefaults } from './collect-settings.js';
import { applyPrompt, hasPrompt, PROMPT_CONFLICT, type PromptConfig } from './prompt-config.js';
import { extraBodyObject } from './request-fields.js';
import type { RowIssue } from './row-error.js';
import type { JsonLine } from '../util/json-lines.js';

/** A `--set` value that fails rows: the key, what is wrong with it, and how many rows it failed. */
export interface OverrideProblem {
  key: string;
  message: string;
  rows: number;
}

const REQUEST_PREFIX = 'responses_create_params.';

/** Where `--add-seed` puts a rollout's seed (see `PlannerOptions.seedField`). */
export const SEED_FIELDS = ['request', 'extra-body'] as const;
export type SeedField = (typeof SEED_FIELDS)[number];

/** `--num-repeats`: one count for every agent, or a count per agent with an optional `_default`. */
export type NumRepeats = number | Readonly<Record<string, number>>;

/** The most rollouts of one row: a row's rollouts are planned together, so its count bounds the memory planning takes. */
export const MAX_REPEATS = 100_000;

export interface PlannerOptions {
  file: string;
  /** The agent for rows without an `agent_ref` (`--agent`). */
  agent?: string;
  numRepeats?: NumRepeats;
  /** Seed each rollout with its `_ng_rollout_index`, where `seedField` says. */
  addSeed?: boolean;
  /**
   * Where `addSeed` puts the seed. `request` (the default): `responses_create_params.seed`, as
   * `002 rollout_collection.py _preprocess_rows_from_config` does. `extra-body`: into the JSON text of
   * `responses_create_params.metadata.extra_body`, as NeMo Gym does since PR #1099, because its agent
   * servers refuse a top-level `seed` (422) and vLLM model servers read `extra_body`.
   */
  seedField?: SeedField;
  /**
   * Keep the `_ng_task_index` a row already has (NeMo Gym since PR #1314, for shards of one dataset
   * numbered apart). By default every row's task comes from its raw line and any index on it is
   * overwritten, as `002 rollout_collection.py _preprocess_rows_from_config` does.
   */
  keepTaskIndices?: boolean;
  /** `--set key=value` overrides of `responses_create_params`; dotted keys reach into nested objects. */
  overrides?: Readonly<Record<string, unknown>>;
  promptConfig?: PromptConfig;
  /** Agents beyond the built-in ones (NeMo Gym agent servers); they take precedence. */
  agents?: ReadonlyMap<string, Agent>;
}

interface PreparedRow {
  row: DatasetRow;
  agent: string;
  repeats: number;
}

/**
 * NeMo Gym's expansion in two streaming passes over the input, keeping only a hash per distinct line:
 * `check` validates a line and assigns its task; `expand` then gives its k copies in "aabbcc" order,
 * `_ng_rollout_index` counted per task, so identical lines pool their rollouts. A task is its raw line
 * as Python reads it, newline included (`002 rollout_collection.py _preprocess_rows_from_config`:
 * `row_to_task_idx.setdefault(row_str, …)` over the file's lines): identical lines share one, a last
 * line without its newline is another, and an index already on the row is overwritten; with
 * `keepTaskIndices` it is kept, the automatic counter starting at 0 on its own.
 */
export class RowPlanner {
  readonly #options: PlannerOptions;
  /** 64-bit hashes of raw lines → task: identical lines share a task (a collision chance of ~3e-8 per million lines). */
  readonly #taskOfLine = new HashTable64();
  readonly #nextRollout = new TaskCounter();
  readonly #agents = new Map<string, Agent>();
  readonly #usedAgents = new Set<string>();
  /** `--set` overrides as paths into `responses_create_params`. */
  readonly #overrides: readonly [string[], unknown][];
  /** What a `--set` value fails, once per key and problem, with how many rows it failed. */
  readonly #overrideProblems = new Map<string, OverrideProblem>();
  #nextTask = 0;

  constructor(options: PlannerOptions) {
    checkRepeats(options.numRepeats ?? collectDefaults.numRepeats);
    if (nestedDeeperThan(options.overrides, MAX_ROW_DEPTH)) throw new ConfigError(`--set: a value nested deeper than ${MAX_ROW_DEPTH} levels`);
    checkOverrideKeys(Object.keys(options.overrides ?? {}));
    this.#options = options;
    this.#overrides = Object.entries(options.overrides ?? {}).map(([key, value]) => [key.split('.'), value]);
  }

  /** Pass 1: every problem with this line, named by file, line and field; assigns its task when it has none. */
  check(source: JsonLine): RowIssue[] {
    const { line, text } = source;
    const prepared = this.#prepare(line, text);
    if (!('row' in prepared)) return prepared.issues;
    const agent = this.agent(prepared.agent);
    const issues = agent ? agent.check(this.#materialize(prepared, 0, 0)).map((issue) => ({ ...issue, file: this.#options.file, line })) : [];
    if (issues.length === 0) this.#taskFor(prepared.row, source, true);
    return issues.filter((issue) => !this.#countedAsOverride(issue));
  }

  /**
   * The problems of `--set` values found by `check`, each once: a bad value fails every row it
   * reaches, and was reported once per row (16 identical lines for a 16-row input). In the order the
   * flags were given.
   */
  overrideProblems(): OverrideProblem[] {
    const order = Object.keys(this.#options.overrides ?? {});
    return [...this.#overrideProblems.values()].sort((a, b) => order.indexOf(a.key) - order.indexOf(b.key));
  }

  /** Pass 2: the planned rollouts of a line that passed `check`. */
  expand(source: JsonLine): MaterializedRow[] {
    const prepared = this.#prepare(source.line, source.text);
    if (!('row' in prepared)) throw new ConfigError(`${this.#options.file}:${source.line} changed since it was checked`);
    const task = this.#taskFor(prepared.row, source, false);
    return Array.from({ length: prepared.repeats }, () => this.#materialize(prepared, task, this.#nextRollout.increment(task)));
  }

  /** The agent running rows of this name, or undefined when there is none. */
  agent(name: string): Agent | undefined {
    const agent = this.#agents.get(name) ?? this.#options.agents?.get(name) ?? builtinAgent(name);
    if (agent) this.#agents.set(name, agent);
    return agent;
  }

  /** Agents of a repeat map that no row used (NeMo Gym warns about them). */
  unusedRepeatAgents(): string[] {
    const map = typeof this.#options.numRepeats === 'object' ? this.#options.numRepeats : {};
    return Object.keys(map).filter((name) => name !== '_default' && !this.#usedAgents.has(name));
  }

  #prepare(line: number, text: string): PreparedRow | { issues: RowIssue[] } {
    const file = this.#options.file;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return { issues: [{ file, line, field: '', message: `not valid JSON (${(error as Error).message})` }] };
    }
    if (mayNestDeeperThan(text, MAX_ROW_DEPTH) && nestedDeeperThan(value, MAX_ROW_DEPTH))
      return { issues: [{ file, line, field: '', message: `nested deeper than ${MAX_ROW_DEPTH} levels` }] };
    // Overwritten in `#materialize`, so never refused; kept in its place, as a Python dict keeps a key it reassigns.
    if (!this.#options.keepTaskIndices && isRecord(value) && Object.hasOwn(value, '_ng_task_index')) value._ng_task_index = 0;
    const parsed = readDatasetRow(value);
    if ('issues' in parsed) return { issues: parsed.issues.map(({ field, message }) => ({ file, line, field, message })) };
    let row = parsed.data;
    if (this.#options.promptConfig) {
      if (hasPrompt(row)) return { issues: [{ file, line, field: 'responses_create_params.input', message: PROMPT_CONFLICT }] };
      try {
        row = applyPrompt(row, this.#options.promptConfig);
      } catch (error) {
        return { issues: [{ file, line, field: 'prompt', message: (error as Error).message }] };
      }
    }
    const agent = row.agent_ref?.name ?? this.#options.agent;
    if (agent === undefined) return { issues: [{ file, line, field: 'agent_ref.name', message: 'no agent: give the row an agent_ref or pass --agent' }] };
    if (!this.agent(agent)) return { issues: [unknownAgent(agent, file, line)] };
    const repeats = this.#repeatsFor(agent);
    if (repeats === undefined)
      return { issues: [{ file, line, field: 'agent_ref.name', message: `agent "${agent}" has no entry in --num-repeats and there is no _default` }] };
    this.#usedAgents.add(agent);
    return { row, agent, repeats };
  }

  #taskFor(row: DatasetRow, { text, unterminated }: JsonLine, assign: boolean): number {
    if (this.#options.keepTaskIndices && row._ng_task_index !== undefined) return row._ng_task_index;
    const digest = createHash('sha1')
      .update(unterminated ? text : `${text}\n`)
      .digest();
    const [high, low] = [digest.readUInt32LE(0), digest.readUInt32LE(4)];
    let task = this.#taskOfLine.get(high, low);
    if (task === -1) {
      if (!assign) throw new ConfigError('a line was not checked before it was expanded');
      task = this.#nextTask++;
      this.#taskOfLine.set(high, low, task);
    }
    return task;
  }

  #repeatsFor(agent: string): number | undefined {
    const numRepeats = this.#options.numRepeats ?? collectDefaults.numRepeats;
    return typeof numRepeats === 'number' ? numRepeats : (numRepeats[agent] ?? numRepeats._default);
  }

  /** Whether the issue is in a value `--set` put there rather than the row's own; if so, it is counted there. */
  #countedAsOverride(issue: RowIssue): boolean {
    const field = issue.field.startsWith(REQUEST_PREFIX) ? issue.field.slice(REQUEST_PREFIX.length) : undefined;
    const key = field === undefined ? undefined : Object.keys(this.#options.overrides ?? {}).find((name) => field === name || field.startsWith(`${name}.`));
    if (field === undefined || key === undefined) return false;
    const message = field === key ? issue.message : `${field.slice(key.length + 1)}: ${issue.message}`;
    const problem = this.#overrideProblems.get(`${key}\n${message}`) ?? { key, message, rows: 0 };
    problem.rows += 1;
    this.#overrideProblems.set(`${key}\n${message}`, problem);
    return true;
  }

  /**
   * The rollouts of a line share its nested values, uncopied: the row was parsed for this call alone,
   * and nothing changes a planned row (`--set` copies the objects on its path before writing into them).
   */
  #materialize({ row, agent }: PreparedRow, task: number, rollout: number): MaterializedRow {
    const params: Record<string, unknown> = { ...row.responses_create_params };
    for (const [path, value] of this.#overrides) setPath(params, path, value);
    if (this.#options.addSeed) addSeed(params, rollout, this.#options.seedField ?? 'request');
    // Assigned in place (a key the row has keeps its position); the row has no `__proto__` key to
    // assign (DatasetRow drops it), which would set the copy's prototype instead.
    const materialized: Record<string, unknown> = {};
    for (const key in row) if (!OUTPUT_FIELDS.has(key)) materialized[key] = (row as Record<string, unknown>)[key];
    materialized.responses_create_params = params;
    materialized.agent_ref = { ...row.agent_ref, name: agent };
    materialized._ng_task_index = task;
    materialized._ng_rollout_index = rollout;
    return materialized as MaterializedRow;
  }
}

/** A row naming an agent that nothing runs: what there is, and how to give it one. */
export function unknownAgent(agent: string, file: string, line: number): RowIssue {
  const builtins = builtinEnvironments.map((entry) => entry.name).join(', ');
  return { file, line, field: 'agent_ref.name', message: `unknown agent "${agent}" (built-in agents: ${builtins}; or pass --agent-server ${agent}=URL)` };
}

/**
 * Fields a rollout writes, not a task: an input that carries them (a failure sidecar or a rollouts
 * file fed back in) must not pass a stale reward, failure class or answer on to its new rows.
 */
const OUTPUT_FIELDS: ReadonlySet<string> = new Set(
  [...Object.keys(ResultRow.shape), ...Object.keys(FailureRow.shape)].filter((key) => !(key in MaterializedRow.shape) || key === '_ng_attempt_index'),
);

/**
 * How deep a row may nest (objects and lists within each other). Real rows need a dozen levels (a
 * tool's JSON Schema a few more); far deeper ones are refused before anything recursive (JSON.stringify,
 * zod) meets them and overflows the stack.
 */
const MAX_ROW_DEPTH = 100;

/**
 * Whether a JSON text could nest more than `limit` levels: each level opens with a bracket, so a text
 * with no more brackets than that cannot, and (the common case) needs no walk of its parsed value.
 */
function mayNestDeeperThan(text: string, limit: number): boolean {
  let brackets = 0;
  for (const bracket of ['{', '[']) {
    for (let at = text.indexOf(bracket); at !== -1; at = text.indexOf(bracket, at + 1)) if (++brackets > limit) return true;
  }
  return false;
}

/** Whether `value` nests more than `limit` levels, walked without recursion so the check itself cannot overflow. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [next, depth] = pending.pop()!;
    if (typeof next !== 'object' || next === null) continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(next)) pending.push([child, depth + 1]);
  }
  return false;
}

/** A repeat count is a whole number from 1 to MAX_REPEATS, whether one for all agents or one per agent. */
function checkRepeats(numRepeats: NumRepeats): void {
  const counts = typeof numRepeats === 'number' ? [['', numRepeats] as const] : Object.entries(numRepeats);
  for (const [agent, count] of counts) {
    const of = `, got ${count}${agent ? ` for ${agent}` : ''}`;
    if (!Number.isInteger(count) || count < 1) throw new ConfigError(`--num-repeats must be a whole number of at least 1${of}`);
    if (count > MAX_REPEATS) throw new ConfigError(`--num-repeats must be at most ${MAX_REPEATS}${of}`);
  }
}

/**
 * The rollout's seed where `field` says. Into `extra_body` it is merged with what the text already
 * holds, as NeMo Gym merges it; text that is not a JSON object is left for the row's check to refuse.
 */
function addSeed(params: Record<string, unknown>, rollout: number, field: SeedField): void {
  if (field === 'request') {
    params.seed = rollout;
    return;
  }
  const metadata = (isRecord(params.metadata) ? params.metadata : {}) as Record<string, unknown>;
  const extraBody = typeof metadata.extra_body === 'string' ? extraBodyObject(metadata.extra_body) : metadata.extra_body === undefined ? {} : undefined;
  if (extraBody) params.metadata = { ...metadata, extra_body: JSON.stringify({ ...extraBody, seed: rollout }) };
}

/** A key through which `setPath` would reach a prototype is refused, never set. */
function checkOverrideKeys(keys: readonly string[]): void {
  for (const key of keys) {
    const problem = prototypeKeyProblem(key);
    if (problem !== undefined) throw new ConfigError(`--set ${key}: ${problem}`);
  }
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  const [head, ...rest] = path;
  if (head === undefined) return;
  if (rest.length === 0) {
    target[head] = value;
    return;
  }
  const child = target[head];
  // A copy: the object may be the input row's, shared by the line's other rollouts.
  const next = typeof child === 'object' && child !== null && !Array.isArray(child) ? { ...(child as Record<string, unknown>) } : {};
  target[head] = next;
  setPath(next, rest, value);
}

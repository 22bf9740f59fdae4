import { ConfigError } from '../core/errors/config-error.js';
import type { ResultRowHead } from '../core/row-reader.js';
import { readMaterializedRow, readRow } from '../core/row-reader.js';
import { NumberList } from '../metrics/number-list.js';
import { AggregateAccumulator, type AgentAggregate, type AnswerKey } from '../metrics/index.js';
import { RolloutKeyIndex, type JsonRow, type OutcomeSource, type RunLine, type RunRowReader } from './result-files.js';
import { TaskIdentity } from './task-identity.js';

/** Fields of a materialized row that are the request and the bookkeeping, not the task. */
const isTaskField = (name: string) => name !== 'responses_create_params' && name !== 'agent_ref' && !name.startsWith('_ng_');

export interface AggregateReaderOptions {
  /** The run's materialized inputs: expected rollouts per task, and which fields are the task's (not metrics). */
  materialized?: readonly string[];
  /** The field holding each rollout's extracted answer (majority@k, no_answer); by default `extracted_answer` when any row has it. */
  answerKey?: string;
  /**
   * List every rollout in its task's group (NeMo Gym's `rollout_infos`). Off by default: the rest of
   * the file grows with tasks and metrics, these with rollouts (14 lines each, most of a large run's file).
   */
  rolloutInfos?: boolean;
  /** Keep every planned key and where it was read (`planKeys`), for a profile. */
  planKeys?: boolean;
  signal?: AbortSignal;
}

/** What the materialized inputs tell the aggregate. */
interface Plan {
  /** The task's own field names (see `MetricColumns`). */
  taskFields: Set<string>;
  /** Per agent, the task of every planned rollout. */
  tasks: Map<string, NumberList>;
  /** Every planned key and where it was read; filled only for a profile. */
  keys: RolloutKeyIndex;
}

/**
 * The aggregate as one reader of a pass over a run's files (`readRunFiles`), so that a caller's pass
 * can feed it and others (collect's health checks) each row once. The plan comes first: what each
 * agent planned, and which fields are the task's. Then successes from the result files and failures
 * from anywhere; a key with two results is an error naming both places. Rows of older NeMo Gym files
 * without keys or agent get them from `TaskIdentity` (the rule `health` reads them by too).
 * `check` sees every success first (a profile aligns it with the plan).
 */
export class AggregateReader implements RunRowReader {
  readonly #plan: Plan = { taskFields: new Set(), tasks: new Map(), keys: new RolloutKeyIndex() };
  readonly #options: AggregateReaderOptions;
  readonly #check: ((row: ResultRowHead, at: JsonRow) => void) | undefined;
  readonly #identity: TaskIdentity;
  readonly #results = new RolloutKeyIndex();
  #agents: AgentAccumulators | undefined;
  #resultsChecked = false;

  constructor(options: AggregateReaderOptions, check?: (row: ResultRowHead, at: JsonRow) => void) {
    this.#options = options;
    this.#check = check;
    this.#identity = new TaskIdentity(options.materialized, options.signal);
  }

  get planKeys(): RolloutKeyIndex {
    return this.#plan.keys;
  }

  planned(line: RunLine): void {
    const planned = readMaterializedRow(jsonOf(line), line.where);
    for (const name of Object.keys(planned)) if (isTaskField(name)) this.#plan.taskFields.add(name);
    let tasks = this.#plan.tasks.get(planned.agent_ref.name);
    if (!tasks) this.#plan.tasks.set(planned.agent_ref.name, (tasks = new NumberList()));
    tasks.push(planned._ng_task_index);
    if (this.#options.planKeys) this.#plan.keys.add(planned._ng_task_index, planned._ng_rollout_index, line);
  }

  outcome(line: RunLine, source: OutcomeSource): void | Promise<void> {
    const identified = this.#identity.identify(jsonOf(line), line.where);
    return identified instanceof Promise ? identified.then((value) => this.#outcome(value, line, source)) : this.#outcome(identified, line, source);
  }

  #outcome(value: unknown, line: RunLine, source: OutcomeSource): void {
    const read = readRow(value, line.where);
    if (source === 'failures') {
      this.#checkResults();
      if (read.kind === 'result') throw new ConfigError(`${line.where}: a successful rollout (no _ng_failure_class) in a failure file`);
      this.#accumulators().outcomeOf(read.row).addFailure(read.row);
      return;
    }
    const agent = this.#accumulators().outcomeOf(read.row);
    if (read.kind === 'failure') {
      agent.addFailure(read.row);
      return;
    }
    this.#check?.(read.row, line);
    this.#results.add(read.row._ng_task_index, read.row._ng_rollout_index, line);
    agent.addResult(read.row);
  }

  /** Each agent's aggregate, once every file was read. */
  finish(): AgentAggregate[] {
    this.#checkResults();
    return this.#accumulators().finish();
  }

  /** Made at the first outcome: every planned rollout has been read by then. */
  #accumulators(): AgentAccumulators {
    return (this.#agents ??= new AgentAccumulators(this.#plan, answerKeyOf(this.#options), this.#options.rolloutInfos ?? false));
  }

  /** Every result key once, checked when the results have all been read (before the failures). */
  #checkResults(): void {
    if (this.#resultsChecked) return;
    this.#resultsChecked = true;
    this.#results.assertUnique('rollout');
  }
}

/** The line's JSON value; a line that is not JSON is an error naming it. */
function jsonOf(line: RunLine): unknown {
  if (line.error) throw new ConfigError(`${line.where}: not valid JSON (${line.error.message})`);
  return line.value;
}

/** One accumulator per agent, made when the agent's first outcome is read; agents come out in key order. */
class AgentAccumulators {
  readonly #plan: Plan;
  readonly #answerKey: AnswerKey;
  readonly #agents = new Map<string, { accumulator: AggregateAccumulator; first: { task: number; rollout: number } }>();

  readonly #rolloutInfos: boolean;

  constructor(plan: Plan, answerKey: AnswerKey, rolloutInfos: boolean) {
    this.#plan = plan;
    this.#answerKey = answerKey;
    this.#rolloutInfos = rolloutInfos;
  }

  /** The accumulator for the row's agent. */
  outcomeOf(row: Pick<ResultRowHead, 'agent_ref' | '_ng_task_index' | '_ng_rollout_index'>): AggregateAccumulator {
    const name = row.agent_ref.name;
    const key = { task: row._ng_task_index, rollout: row._ng_rollout_index };
    const found = this.#agents.get(name);
    if (found) {
      if (key.task < found.first.task || (key.task === found.first.task && key.rollout < found.first.rollout)) found.first = key;
      return found.accumulator;
    }
    const accumulator = new AggregateAccumulator({
      agent: name,
      taskFields: this.#plan.taskFields,
      answerKey: this.#answerKey,
      rolloutInfos: this.#rolloutInfos,
    });
    const tasks = this.#plan.tasks.get(name);
    for (let i = 0; i < (tasks?.length ?? 0); i++) accumulator.addPlanned(tasks!.get(i));
    this.#plan.tasks.delete(name);
    this.#agents.set(name, { accumulator, first: key });
    return accumulator;
  }

  /** Each agent's aggregate, ordered by its first rollout key (NeMo Gym meets agents in that order). */
  finish(): AgentAggregate[] {
    return [...this.#agents.values()]
      .sort((a, b) => a.first.task - b.first.task || a.first.rollout - b.first.rollout)
      .map(({ accumulator }) => accumulator.finish());
  }
}

function answerKeyOf(sources: Pick<AggregateReaderOptions, 'answerKey'>): AnswerKey {
  return sources.answerKey === undefined ? { field: 'extracted_answer', auto: true } : { field: sources.answerKey };
}

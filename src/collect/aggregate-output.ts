import type { Writable } from 'node:stream';
import { ConfigError } from '../core/errors/config-error.js';
import type { ResultRowHead } from '../core/row-reader.js';
import { readMaterializedRow, readRow } from '../core/row-reader.js';
import { NumberList } from '../metrics/number-list.js';
import { AggregateAccumulator, type AgentAggregate, type AnswerKey, type GroupLevelMetrics } from '../metrics/index.js';
import { writeFileAtomic } from '../util/write-file-atomic.js';
import { ChunkedWriter, JsonRowReader, readRunFiles, RolloutKeyIndex, type JsonRow, type OutcomeSource, type RunLine, type RunRowReader } from './result-files.js';
import type { CollectedAggregate } from './server-aggregate.js';
import { TaskIdentity } from './task-identity.js';

export type { AgentAggregate, AgentSummary } from '../metrics/index.js';

export interface AggregateSources {
  /** Result files: one run, or its shards. A rollout key may appear in only one place. */
  results: readonly string[];
  /** Failure sidecars: a rollout there counts as failed once, and not at all if it also succeeded. */
  failures?: readonly string[];
  /** The run's materialized inputs: expected rollouts per task, and which fields are the task's (not metrics). */
  materialized?: readonly string[];
  /** The field holding each rollout's extracted answer (majority@k, no_answer); by default `extracted_answer` when any row has it. */
  answerKey?: string;
  /**
   * List every rollout in its task's group (NeMo Gym's `rollout_infos`). Off by default: the rest of
   * the file grows with tasks and metrics, these with rollouts (14 lines each, most of a large run's file).
   */
  rolloutInfos?: boolean;
}

/**
 * NeMo Gym's aggregate metrics per agent, with NeMo RL's rollout metrics, over result files streamed
 * row by row (errors name file:line). Memory holds a few numbers per rollout, never the rows.
 */
export async function aggregateFiles(sources: AggregateSources, signal?: AbortSignal): Promise<AgentAggregate[]> {
  const reader = new AggregateReader({ ...sources, ...(signal ? { signal } : {}) });
  await readRunFiles(sources, [reader], signal);
  return reader.finish();
}

/**
 * Writes aggregates as NeMo Gym lays them out (a JSON list, indented by 2), streaming the per-task
 * groups; atomically, so a crash or a full disk keeps the previous file whole.
 */
export async function writeAggregateFile(path: string, aggregates: readonly CollectedAggregate[]): Promise<void> {
  await writeFileAtomic(path, (file) => writeAggregate(file, aggregates));
}

/** `writeAggregateFile` to any stream (stdout), which stays open. */
export async function writeAggregate(out: Writable, aggregates: readonly CollectedAggregate[]): Promise<void> {
  const writer = new ChunkedWriter(out);
  for (const [i, aggregate] of aggregates.entries()) {
    await writer.write(`${i === 0 ? '[' : ','}\n  {\n`);
    for (const field of ['agent_ref', 'computed_by', 'agent_metrics', 'key_metrics', 'rollout_metrics'] as const) {
      if (aggregate[field] !== undefined) await writer.write(`    "${field}": ${indented(aggregate[field], 4)},\n`);
    }
    await writer.write('    "group_level_metrics": [');
    let groups = 0;
    for (const group of aggregate.group_level_metrics) await writer.write(`${groups++ === 0 ? '' : ','}\n      ${indented(group, 6)}`);
    await writer.write(`${groups === 0 ? ']' : '\n    ]'}\n  }`);
  }
  await writer.write(aggregates.length === 0 ? '[]\n' : '\n]\n');
  await writer.flush();
}

export interface ProfileSources {
  materialized: string;
  rollouts: string;
  /** Profile even when planned rollouts have no result (NeMo Gym's `allow_partial_rollouts`). */
  allowPartial?: boolean;
}

/** How much of the plan has results: rollouts, and tasks complete, partial or without any. */
export interface ProfileCompletion {
  expected: number;
  completed: number;
  missing: number;
  tasks: { complete: number; partial: number; missing: number };
}

/**
 * NeMo Gym's reward profile (`gym eval profile`): results aligned with the materialized inputs by
 * (task, rollout). A key planned twice, a result without a planned row, or a key with two results is
 * an error naming file:line; planned rollouts without a result are an error unless `allowPartial`.
 */
export async function profileFiles(sources: ProfileSources, signal?: AbortSignal): Promise<RewardProfile> {
  let matched = new Uint8Array(0);
  const reader: AggregateReader = new AggregateReader({ rolloutInfos: true, planKeys: true, materialized: [sources.materialized], ...(signal ? { signal } : {}) }, (row, at) => {
    const position = reader.planKeys.find(row._ng_task_index, row._ng_rollout_index);
    if (position === -1) throw new ConfigError(`${at.where}: rollout ${row._ng_task_index}:${row._ng_rollout_index} has no row in ${sources.materialized}`);
    matched[position] = 1;
  });
  // The plan first, on its own: its keys must be unique before results are matched with them.
  await readRunFiles({ materialized: [sources.materialized], results: [] }, [reader], signal);
  reader.planKeys.assertUnique('planned rollout');
  matched = new Uint8Array(reader.planKeys.length);
  await readRunFiles({ results: [sources.rollouts] }, [reader], signal);
  const profile = new RewardProfile(reader.finish(), reader.planKeys, matched);
  const { missing } = profile.completion;
  if (missing > 0 && !sources.allowPartial) {
    throw new ConfigError(`${missing} planned rollouts have no result (e.g. ${profile.missingKeys(5).join(', ')}); pass --allow-partial to profile anyway`);
  }
  return profile;
}

/** A reward profile ready to write: the aggregates, and the plan they were aligned with. */
export class RewardProfile {
  readonly aggregates: readonly AgentAggregate[];
  readonly completion: ProfileCompletion;
  readonly #plan: RolloutKeyIndex;
  readonly #matched: Uint8Array;

  constructor(aggregates: readonly AgentAggregate[], plan: RolloutKeyIndex, matched: Uint8Array) {
    this.aggregates = aggregates;
    this.#plan = plan;
    this.#matched = matched;
    this.completion = this.#completion();
  }

  /** The first `limit` planned keys without a result. */
  missingKeys(limit: number): string[] {
    const keys: string[] = [];
    for (const position of this.#plan.order()) {
      if (keys.length === limit) break;
      if (!this.#matched[position]) keys.push(this.#plan.key(position));
    }
    return keys;
  }

  /**
   * Writes `<stem>_reward_profiling.jsonl` (one group per task, in task order, its `sample` the task's
   * materialized row without the keys) and `<stem>_agent_metrics.json` (NeMo Gym's flat layout), each
   * atomically.
   */
  async write(stem: string): Promise<{ profiling: string; agentMetrics: string }> {
    const paths = { profiling: `${stem}_reward_profiling.jsonl`, agentMetrics: `${stem}_agent_metrics.json` };
    const samples = new SampleReader(this.#plan, this.#matched);
    try {
      await writeFileAtomic(paths.profiling, async (file) => {
        const writer = new ChunkedWriter(file);
        for (const group of byTask(this.aggregates.map((aggregate) => aggregate.group_level_metrics))) {
          await writer.write(`${JSON.stringify({ ...group, sample: await samples.sampleOf(group._ng_task_index) })}\n`);
        }
        await writer.flush();
      });
    } finally {
      samples.close();
    }
    const agentMetrics = this.aggregates.map((aggregate) => ({ ...aggregate.agent_metrics, agent_ref: aggregate.agent_ref }));
    await writeFileAtomic(paths.agentMetrics, `${JSON.stringify(agentMetrics, null, 2)}\n`);
    return paths;
  }

  #completion(): ProfileCompletion {
    const completion: ProfileCompletion = { expected: this.#plan.length, completed: 0, missing: 0, tasks: { complete: 0, partial: 0, missing: 0 } };
    const order = this.#plan.order();
    let taskStart = 0;
    let taskMatched = 0;
    for (let i = 0; i < order.length; i++) {
      if (this.#matched[order[i]!]) taskMatched += 1;
      const taskEnds = i + 1 === order.length || this.#plan.task(order[i + 1]!) !== this.#plan.task(order[i]!);
      if (!taskEnds) continue;
      const planned = i + 1 - taskStart;
      completion.completed += taskMatched;
      if (taskMatched === planned) completion.tasks.complete += 1;
      else if (taskMatched > 0) completion.tasks.partial += 1;
      else completion.tasks.missing += 1;
      taskStart = i + 1;
      taskMatched = 0;
    }
    completion.missing = completion.expected - completion.completed;
    return completion;
  }
}

/** Fields of a materialized row that are the request and the bookkeeping, not the task. */
const isTaskField = (name: string) => name !== 'responses_create_params' && name !== 'agent_ref' && !name.startsWith('_ng_');

export interface AggregateReaderOptions extends Pick<AggregateSources, 'answerKey' | 'rolloutInfos' | 'materialized'> {
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
    const accumulator = new AggregateAccumulator({ agent: name, taskFields: this.#plan.taskFields, answerKey: this.#answerKey, rolloutInfos: this.#rolloutInfos });
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

function answerKeyOf(sources: Pick<AggregateSources, 'answerKey'>): AnswerKey {
  return sources.answerKey === undefined ? { field: 'extracted_answer', auto: true } : { field: sources.answerKey };
}

/** Several agents' groups as one list in task order (each agent's groups are in task order). */
function* byTask(lists: readonly Iterable<GroupLevelMetrics>[]): Generator<GroupLevelMetrics> {
  const nextOf = (iterator: Iterator<GroupLevelMetrics>) => {
    const next = iterator.next();
    return next.done ? undefined : next.value;
  };
  const heads = lists.map((list) => {
    const iterator = list[Symbol.iterator]();
    return { iterator, group: nextOf(iterator) };
  });
  for (;;) {
    let first: { iterator: Iterator<GroupLevelMetrics>; group: GroupLevelMetrics } | undefined;
    for (const head of heads) if (head.group && (!first || head.group._ng_task_index < first.group._ng_task_index)) first = { iterator: head.iterator, group: head.group };
    if (!first) return;
    yield first.group;
    heads.find((head) => head.iterator === first.iterator)!.group = nextOf(first.iterator);
  }
}

/**
 * Each task's sample for a profile: the materialized row of its first rollout with a result, without
 * the keys. Tasks are asked for in ascending order, so the plan is walked once.
 */
class SampleReader {
  readonly #plan: RolloutKeyIndex;
  readonly #matched: Uint8Array;
  readonly #order: Uint32Array;
  readonly #rows = new JsonRowReader();
  #cursor = 0;

  constructor(plan: RolloutKeyIndex, matched: Uint8Array) {
    this.#plan = plan;
    this.#matched = matched;
    this.#order = plan.order();
  }

  async sampleOf(task: number): Promise<unknown> {
    while (this.#cursor < this.#order.length && this.#plan.task(this.#order[this.#cursor]!) < task) this.#cursor += 1;
    for (let i = this.#cursor; i < this.#order.length && this.#plan.task(this.#order[i]!) === task; i++) {
      if (!this.#matched[this.#order[i]!]) continue;
      const at = await this.#rows.read(this.#plan.origin(this.#order[i]!));
      const { _ng_task_index: _task, _ng_rollout_index: _rollout, ...sample } = readMaterializedRow(at.value, at.where);
      return sample;
    }
    throw new RangeError(`task ${task} has no planned rollout with a result`);
  }

  close(): void {
    this.#rows.close();
  }
}

/** `JSON.stringify(value, null, 2)` as it reads nested `depth` spaces deep. */
function indented(value: unknown, depth: number): string {
  return JSON.stringify(value, null, 2).replaceAll('\n', `\n${' '.repeat(depth)}`);
}

import type { RolloutKeys } from '../core/result-row.js';
import type { ResultRowHead } from '../core/row-reader.js';
import { isZeroTurnRow } from '../core/zero-turn-row.js';
import { describeColumns } from './column-statistics.js';
import { NumberList } from './number-list.js';
import { groupLevelMetrics, GroupLevelMetricsList } from './group-level-metrics.js';
import { MetricColumns } from './metric-columns.js';
import { PassAtKAccumulator, type AgentMetrics } from './pass-at-k.js';
import { RolloutKeyList } from './rollout-key-list.js';
import { rolloutFactsFromRow, RolloutMetricsAccumulator } from './rollout-metrics.js';

/** The field holding each rollout's extracted answer, for majority@k and `no_answer`. */
export interface AnswerKey {
  field: string;
  /** Only when some row has the field (collect's default for `extracted_answer`); otherwise always. */
  auto?: boolean;
}

export interface AggregateOptions {
  agent: string;
  /** The task's own fields (see `MetricColumns`): not metrics, though rows echo them. */
  taskFields?: Iterable<string>;
  answerKey?: AnswerKey;
  /**
   * List every rollout in its task's group (NeMo Gym's `rollout_infos`; default true). Off, the
   * aggregate grows with tasks and metrics but not with rollouts: 14 lines per rollout fewer.
   */
  rolloutInfos?: boolean;
}

/** One agent's aggregate without its per-task groups: small whatever the run's size. */
export interface AgentSummary {
  agent_ref: { name: string };
  /** NeMo Gym's statistics of every metric column, then pass@k, mean@k (and majority@k) on the reward with NeMo Gym's `per_sample_aggregate`. */
  agent_metrics: AgentMetrics;
  key_metrics: Record<string, number>;
  /** NeMo RL's rollout metrics over the rows with gymnast's episode record, and the failed rollouts. */
  rollout_metrics: Record<string, number>;
}

/** NeMo Gym's `AggregateMetrics` for one agent, plus gymnast's `rollout_metrics`. */
export interface AgentAggregate extends AgentSummary {
  group_level_metrics: GroupLevelMetricsList;
}

const ACCURACY = 'accuracy';

/**
 * One agent's aggregate, fed row by row: per-column numbers in typed arrays, never the rows. The
 * keys are sorted once when it finishes, which groups the rollouts by task in rollout order.
 * Every (task, rollout) is added once; a rollout key counts as failed once however many failed
 * attempts it had, and not at all when it also succeeded.
 */
export class AggregateAccumulator {
  readonly #agent: string;
  readonly #answerKey: AnswerKey | undefined;
  readonly #rolloutInfos: boolean;
  readonly #keys = new RolloutKeyList();
  readonly #columns: MetricColumns;
  /** Each row's answer as a number (equal answers, equal numbers); NaN for none. */
  readonly #answers = new NumberList();
  readonly #answerIds = new Map<string, number>();
  #answerSeen = false;
  readonly #planned = new NumberList();
  readonly #failures = new RolloutKeyList();
  readonly #episodes = new RolloutMetricsAccumulator();

  constructor(options: AggregateOptions) {
    this.#agent = options.agent;
    this.#answerKey = options.answerKey;
    this.#rolloutInfos = options.rolloutInfos ?? true;
    this.#columns = new MetricColumns(options.taskFields);
  }

  /** One planned rollout of a task (a materialized input row): for the completion figures. */
  addPlanned(task: number): void {
    this.#planned.push(task);
  }

  addResult(row: ResultRowHead): void {
    const position = this.#keys.add(row._ng_task_index, row._ng_rollout_index);
    this.#columns.add(position, row, { scored: !isZeroTurnRow(row) });
    if (this.#answerKey) this.#answers.set(position, this.#answerOf(row, this.#answerKey.field));
    const facts = rolloutFactsFromRow(row);
    if (facts) this.#episodes.add(facts);
    else this.#episodes.addUnrecorded(row.reward, row.reward_components ?? {});
  }

  addFailure(keys: Pick<RolloutKeys, '_ng_task_index' | '_ng_rollout_index'>): void {
    this.#failures.add(keys._ng_task_index, keys._ng_rollout_index);
  }

  finish(): AgentAggregate {
    const duplicate = this.#keys.duplicate();
    if (duplicate) throw new RangeError(`rollout ${this.#keys.task(duplicate[0])}:${this.#keys.rollout(duplicate[0])} was added twice`);
    const statistics = this.#columns.statisticsOrder();
    const agentMetrics: AgentMetrics = describeColumns(statistics, this.#keys.order(), new Float64Array(this.#keys.length));
    const pass = this.#passAtK();
    // NeMo Gym's default key metrics are every `mean/*`; its math servers add the pass@k, mean@k and majority@k entries at the largest k.
    const headline = [...Object.keys(agentMetrics).filter((key) => key.startsWith('mean/')), ...(pass?.headlineKeys() ?? [])];
    pass?.agentMetrics(agentMetrics);
    const source = {
      agent: this.#agent,
      keys: this.#keys,
      statistics,
      infos: this.#columns.rolloutInfoOrder(),
      planned: this.#planned.toFloat64Array().sort(),
      rolloutInfos: this.#rolloutInfos,
    };
    return {
      agent_ref: { name: this.#agent },
      agent_metrics: agentMetrics,
      key_metrics: Object.fromEntries(headline.map((key) => [key, agentMetrics[key] as number])),
      rollout_metrics: this.#episodes.metrics(this.#failedRollouts()),
      group_level_metrics: new GroupLevelMetricsList(() => groupLevelMetrics(source)),
    };
  }

  #answerOf(row: ResultRowHead, field: string): number {
    if (!(field in row)) return Number.NaN;
    this.#answerSeen = true;
    const value = row[field];
    if (value === null || value === undefined) return Number.NaN;
    // A string answer is itself; any other value is its JSON, marked so that 4 and "4" stay apart.
    const answer = typeof value === 'string' ? value : `\u0000${JSON.stringify(value)}`;
    let id = this.#answerIds.get(answer);
    if (id === undefined) this.#answerIds.set(answer, (id = this.#answerIds.size));
    return id;
  }

  /**
   * pass@k and friends on the reward as `accuracy` (NeMo Gym's default score), fed task by task in
   * rollout order; none when some reward is not 0 or 1. NeMo Gym computes them only in servers whose
   * rewards are correct/incorrect (math, mcqa, string_match); for a reward like blackjack's −1/1, a
   * "pass" percentage (the max of the first k, times 100) means nothing, and its aggregate has none.
   * A rollout without a reward (its prompt never reached the model) is left out of its task, as NeMo
   * Gym leaves out a rollout whose scores lack the name; a task with none left is no task.
   */
  #passAtK(): PassAtKAccumulator | undefined {
    const withAnswers = this.#answerKey !== undefined && (!this.#answerKey.auto || this.#answerSeen);
    const pass = new PassAtKAccumulator([ACCURACY], { withAnswers });
    const order = this.#keys.order();
    const rewards = this.#columns.statisticsOrder().find((column) => column.name === 'reward')?.values ?? new NumberList();
    if (!isBinary(rewards, order.length)) return undefined;
    const scores = new Float64Array(order.length);
    const answers = new Float64Array(order.length);
    for (const [start, end] of this.#keys.taskRuns()) {
      let scored = start;
      for (let i = start; i < end; i++) {
        const reward = rewards.get(order[i]!);
        if (Number.isNaN(reward)) continue;
        scores[scored] = reward;
        answers[scored++] = this.#answers.get(order[i]!);
      }
      pass.addTask([scores.subarray(start, scored)], withAnswers ? answers.subarray(start, scored) : undefined);
    }
    return pass;
  }

  /** Distinct failed keys without a success. */
  #failedRollouts(): number {
    const order = this.#failures.order();
    let failed = 0;
    for (let i = 0; i < order.length; i++) {
      const task = this.#failures.task(order[i]!);
      const rollout = this.#failures.rollout(order[i]!);
      const repeated = i > 0 && task === this.#failures.task(order[i - 1]!) && rollout === this.#failures.rollout(order[i - 1]!);
      if (!repeated && this.#keys.find(task, rollout) === -1) failed += 1;
    }
    return failed;
  }
}

/** The first `length` values all 0 or 1, NaN (no reward) aside. */
function isBinary(values: NumberList, length: number): boolean {
  for (let i = 0; i < length; i++) if (values.get(i) !== 0 && values.get(i) !== 1 && !Number.isNaN(values.get(i))) return false;
  return true;
}

import { NumberList } from './number-list.js';
import { MajorityVote } from './majority-vote.js';

/** One rollout's scores (e.g. `{accuracy: 1}`) and, optionally, its extracted answer. */
export interface ScoredRollout {
  scores: Readonly<Record<string, number>>;
  answer?: string | null;
}

/** NeMo Gym's `per_sample_aggregate`: for each score, the mean over the tasks of run i (every task's i-th rollout), as a percentage, for each i. */
export type PerSampleAggregate = Record<string, number[]>;

/** An agent's metrics as NeMo Gym writes them: numbers, and `per_sample_aggregate` where pass@k is computed. */
export type AgentMetrics = Record<string, number | PerSampleAggregate>;

/** The binary score NeMo Gym adds when rollouts carry answers: 1 when the rollout has none. */
export const NO_ANSWER = 'no_answer';

/**
 * Unbiased pass@k for binary scores (Chen et al.): 1 − C(n − c, k) / C(n, k), and 1 when fewer than k
 * are wrong. The ratio is a running product, so it neither overflows nor costs more than k steps.
 */
export function unbiasedPassAtK(n: number, correct: number, k: number): number {
  const wrong = n - correct;
  if (wrong < k) return 1;
  let ratio = 1;
  for (let i = 0; i < k; i++) ratio *= (wrong - i) / (n - i);
  return 1 - ratio;
}

/** Sums over tasks for one score name, indexed by k (1-based) or by run (0-based). */
interface ScoreSums {
  name: string;
  /** pass@k over the tasks with at least k rollouts. */
  pass: NumberList;
  /** mean@k: the mean of each task's first min(k, n) scores; `meanTail[k]` adds the tasks whose n ends before k. */
  mean: NumberList;
  meanTail: NumberList;
  majority: NumberList;
  majorityTail: NumberList;
  /** The score of each task's i-th rollout (in rollout order), for the per-run means. */
  runs: NumberList;
}

/**
 * NeMo Gym's `compute_pass_majority_metrics`, fed one task at a time and kept as sums per k, so a
 * task with n rollouts costs O(n) whatever the k (NeMo Gym's loops cost O(n) per k). Percentages:
 * - `pass@{k}/{name}`: for a task whose scores are all 0 or 1, the unbiased estimator; otherwise the
 *   max of the first k; over the tasks with at least k rollouts;
 * - `pass@1[avg-of-{k}]/{name}`: the mean of each task's first k scores (all of them when it has fewer),
 *   over every task;
 * - `majority@{k}/{name}` (with answers): over each task's first k rollouts with an answer, the most
 *   common (answer, score), ties averaged, 0 when none has an answer; over every task;
 * - `pass@1[avg-of-{k}]/{name}/std_dev_across_runs` and `…/std_err_across_runs` (k ≥ 2): spread of the
 *   per-run means, run i being the i-th rollout of every task that has one.
 * With answers, `no_answer` (1 when a rollout has none) is one more binary score. Score names are
 * sorted, and keys come k by k, as NeMo Gym orders them.
 */
export class PassAtKAccumulator {
  readonly #scoreNames: readonly string[];
  readonly #withAnswers: boolean;
  readonly #sums: ScoreSums[];
  /** Tasks with more than i rollouts, at i. */
  readonly #tasksWithRun = new NumberList(0);
  readonly #vote = new MajorityVote();
  #tasks = 0;

  /** `scoreNames` in the order `addTask` gives them; with answers, `no_answer` is added. */
  constructor(scoreNames: readonly string[], options: { withAnswers?: boolean } = {}) {
    this.#scoreNames = scoreNames;
    this.#withAnswers = options.withAnswers ?? false;
    const names = [...scoreNames, ...(this.#withAnswers ? [NO_ANSWER] : [])];
    this.#sums = names.map((name) => ({ name, pass: sums(), mean: sums(), meanTail: sums(), majority: sums(), majorityTail: sums(), runs: sums() }));
  }

  /**
   * One task, its rollouts in rollout order: `scores[j][i]` is score `scoreNames[j]` of rollout i, and
   * `answers[i]` its answer as a number (equal answers, equal numbers; NaN for none).
   */
  addTask(scores: readonly ArrayLike<number>[], answers?: ArrayLike<number>): void {
    const n = scores[0]?.length ?? answers?.length ?? 0;
    if (n === 0) return;
    this.#tasks += 1;
    for (let i = 0; i < n; i++) this.#tasksWithRun.add(i, 1);
    const answered = this.#withAnswers ? (answers ?? new Float64Array(n).fill(Number.NaN)) : undefined;
    this.#scoreNames.forEach((name, j) => this.#addScores(this.#sumsOf(name), scores[j]!, n, answered));
    if (answered) this.#addScores(this.#sumsOf(NO_ANSWER), noAnswerScores(answered), n, answered);
  }

  /** The metrics, added to `result` (an object of a million keys is costly to copy). */
  metrics(result: Record<string, number> = {}): Record<string, number> {
    this.#metricsAtK(result);
    this.#spreadMetrics(result);
    return result;
  }

  /**
   * The metrics as NeMo Gym's `compute_pass_majority_metrics` returns them, added to `result`: those
   * of `metrics`, with `per_sample_aggregate` (each score's per-run means) between the metrics at
   * each k and the spreads, where NeMo Gym puts it.
   */
  agentMetrics(result: AgentMetrics): AgentMetrics {
    this.#metricsAtK(result);
    result.per_sample_aggregate = this.#perSampleAggregate();
    this.#spreadMetrics(result);
    return result;
  }

  #metricsAtK(result: AgentMetrics): void {
    const maxK = this.#tasksWithRun.length;
    const ordered = this.#sortedSums();
    const carried = ordered.map(() => ({ mean: 0, majority: 0 }));
    for (let k = 1; k <= maxK; k++) {
      ordered.forEach((sums, j) => {
        carried[j]!.mean += sums.meanTail.get(k);
        carried[j]!.majority += sums.majorityTail.get(k);
        result[`pass@${k}/${sums.name}`] = (100 * sums.pass.get(k)) / this.#tasksWithRun.get(k - 1);
        result[`pass@1[avg-of-${k}]/${sums.name}`] = (100 * (sums.mean.get(k) + carried[j]!.mean)) / this.#tasks;
        if (this.#withAnswers) result[`majority@${k}/${sums.name}`] = (100 * (sums.majority.get(k) + carried[j]!.majority)) / this.#tasks;
      });
    }
  }

  #spreadMetrics(result: AgentMetrics): void {
    const ordered = this.#sortedSums();
    const spreads = ordered.map((sums) => this.#spreadAcrossRuns(sums.runs));
    for (let k = 2; k <= this.#tasksWithRun.length; k++) {
      ordered.forEach((sums, j) => {
        result[`pass@1[avg-of-${k}]/${sums.name}/std_dev_across_runs`] = spreads[j]![k]!;
        result[`pass@1[avg-of-${k}]/${sums.name}/std_err_across_runs`] = spreads[j]![k]! / Math.sqrt(k);
      });
    }
  }

  #perSampleAggregate(): PerSampleAggregate {
    return Object.fromEntries(
      this.#sortedSums().map((sums) => [sums.name, Array.from({ length: sums.runs.length }, (_, run) => this.#runMean(sums.runs, run))]),
    );
  }

  /** Run `run`'s mean score over the tasks that have that run, as a percentage. */
  #runMean(runs: NumberList, run: number): number {
    return (100 * runs.get(run)) / this.#tasksWithRun.get(run);
  }

  /** NeMo Gym's `highest_k_metrics` for each family (pass@k, mean@k, majority@k): the keys at the largest k, spreads left out. */
  headlineKeys(): string[] {
    const k = this.#tasksWithRun.length;
    if (k === 0) return [];
    const families = [`pass@${k}`, `pass@1[avg-of-${k}]`, ...(this.#withAnswers ? [`majority@${k}`] : [])];
    return this.#sortedSums().flatMap((sums) => families.map((family) => `${family}/${sums.name}`));
  }

  #sortedSums(): ScoreSums[] {
    return [...this.#sums].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  #sumsOf(name: string): ScoreSums {
    return this.#sums.find((sums) => sums.name === name)!;
  }

  #addScores(sums: ScoreSums, values: ArrayLike<number>, n: number, answers: ArrayLike<number> | undefined): void {
    for (let i = 0; i < n; i++) sums.runs.add(i, values[i]!);
    addPassAtK(sums.pass, values, n);
    addMeanAtK(sums.mean, sums.meanTail, values, n);
    if (answers) this.#addMajorityAtK(sums, values, answers, n);
  }

  #addMajorityAtK(sums: ScoreSums, values: ArrayLike<number>, answers: ArrayLike<number>, n: number): void {
    this.#vote.reset();
    for (let k = 1; k <= n; k++) {
      if (!Number.isNaN(answers[k - 1]!)) this.#vote.add(answers[k - 1]!, values[k - 1]!);
      sums.majority.add(k, this.#vote.score());
    }
    sums.majorityTail.add(n + 1, this.#vote.score());
  }

  /** The sample std of the first k per-run means, for every k (Welford's update: one pass over the runs). */
  #spreadAcrossRuns(runs: NumberList): Float64Array {
    const spread = new Float64Array(runs.length + 1);
    let mean = 0;
    let squares = 0;
    for (let run = 0; run < runs.length; run++) {
      const value = this.#runMean(runs, run);
      const delta = value - mean;
      mean += delta / (run + 1);
      squares += delta * (value - mean);
      spread[run + 1] = run === 0 ? Number.NaN : Math.sqrt(squares / run);
    }
    return spread;
  }
}

const sums = () => new NumberList(0);

function noAnswerScores(answers: ArrayLike<number>): Float64Array {
  const scores = new Float64Array(answers.length);
  for (let i = 0; i < answers.length; i++) scores[i] = Number.isNaN(answers[i]!) ? 1 : 0;
  return scores;
}

/** pass@k for every k ≤ n: the unbiased estimator for a binary task (its ratio updated from k − 1), else the running max. */
function addPassAtK(pass: NumberList, values: ArrayLike<number>, n: number): void {
  let binary = true;
  let wrong = 0;
  for (let i = 0; i < n; i++) {
    if (values[i] !== 0 && values[i] !== 1) binary = false;
    if (values[i] === 0) wrong += 1;
  }
  let ratio = 1;
  let best = -Infinity;
  for (let k = 1; k <= n; k++) {
    if (binary) {
      ratio = wrong < k ? 0 : (ratio * (wrong - k + 1)) / (n - k + 1);
      pass.add(k, 1 - ratio);
    } else {
      best = Math.max(best, values[k - 1]!);
      pass.add(k, best);
    }
  }
}

/**
 * pass@k (1 ≤ k ≤ n) of one task's n scores in rollout order, as a fraction, by the very rule
 * `PassAtKAccumulator` sums over tasks: the unbiased estimator when every score is 0 or 1, else the
 * best of the first k. For a per-task view (the viewer's task table) without an accumulator per task.
 */
export function taskPassAtK(values: ArrayLike<number>, k: number): number {
  const pass = new NumberList(0);
  addPassAtK(pass, values, values.length);
  return pass.get(k);
}

/** mean@k for every k ≤ n from running sums; past n the task's mean holds, added once at n + 1 and carried. */
function addMeanAtK(mean: NumberList, tail: NumberList, values: ArrayLike<number>, n: number): void {
  let sum = 0;
  for (let k = 1; k <= n; k++) {
    sum += values[k - 1]!;
    mean.add(k, sum / k);
  }
  tail.add(n + 1, sum / n);
}

/**
 * NeMo Gym's `compute_pass_majority_metrics` over whole tasks (each a list of rollouts in rollout
 * order); see `PassAtKAccumulator`. A score a rollout lacks counts as 0.
 */
export function passMajorityMetrics(tasks: readonly (readonly ScoredRollout[])[], options: { withAnswers?: boolean } = {}): Record<string, number> {
  const names = [...new Set(tasks.flatMap((rollouts) => rollouts.flatMap((rollout) => Object.keys(rollout.scores))))].filter(
    (name) => !(options.withAnswers && name === NO_ANSWER),
  );
  const accumulator = new PassAtKAccumulator(names, options);
  const answerIds = new Map<string, number>();
  const answerId = (answer: string | null | undefined) => {
    if (answer === null || answer === undefined) return Number.NaN;
    if (!answerIds.has(answer)) answerIds.set(answer, answerIds.size);
    return answerIds.get(answer)!;
  };
  for (const rollouts of tasks) {
    const scores = names.map((name) => Float64Array.from(rollouts, (rollout) => rollout.scores[name] ?? 0));
    accumulator.addTask(scores, options.withAnswers ? Float64Array.from(rollouts, (rollout) => answerId(rollout.answer)) : undefined);
  }
  return accumulator.metrics();
}

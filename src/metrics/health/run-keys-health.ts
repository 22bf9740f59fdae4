import { NumberList } from '../number-list.js';
import { RolloutKeyList } from '../rollout-key-list.js';
import { healthFinding, type HealthFinding } from './health-check.js';

/** Where a key was read: a planned rollout, a successful row, or a failure row. */
export type KeySource = 'plan' | 'result' | 'failure';

/** A finding about a key (a duplicate, a missing rollout) or a whole task (`rollout` null). */
export interface KeyFinding {
  task: number;
  rollout: number | null;
  /** The caller's origin (file and line, packed) of the row the finding is about. */
  origin: number;
  finding: HealthFinding;
}

/**
 * Each planned or seen key counted once by its worst finding; `failed`: only failures, no error otherwise;
 * `evaluation_only`: no error, from a text-only policy (scored, never trained on), whatever its warnings.
 */
export interface RolloutVerdictCounts {
  total: number;
  healthy: number;
  warning: number;
  unhealthy: number;
  evaluation_only: number;
  failed: number;
}

export interface TaskVerdictCounts {
  total: number;
  healthy: number;
  warning: number;
  unhealthy: number;
}

const SOURCES: readonly KeySource[] = ['plan', 'result', 'failure'];
const SEVERITY = { none: 0, warning: 1, error: 2 } as const;
/** A bit beside the severity in the same list: the row is evaluation-only (no extra bytes a row). */
const EVALUATION_ONLY = 4;
const severityOf = (flags: number) => flags & ~EVALUATION_ONLY;

/**
 * The checks across rows: duplicated, missing and unplanned keys, and tasks every repeat of which
 * failed or scored 0. Holds a few numbers a row (key, source, origin, reward, worst severity: about
 * 10 bytes in a run of 100,000 rollouts, see `NumberList`), never the rows; one sort at `findings()`
 * groups keys and tasks.
 */
export class RunKeysHealth {
  readonly #keys = new RolloutKeyList();
  readonly #sources = new NumberList();
  readonly #origins = new NumberList();
  readonly #rewards = new NumberList();
  readonly #severity = new NumberList(0);
  #planned = false;
  #counts: { rollouts: RolloutVerdictCounts; tasks: TaskVerdictCounts } | undefined;

  /** Adds a key read from `origin`; `reward` for results. Returns its position, for `flag`. */
  add(source: KeySource, task: number, rollout: number, origin: number, reward = Number.NaN): number {
    if (source === 'plan') this.#planned = true;
    this.#sources.push(SOURCES.indexOf(source));
    this.#origins.push(origin);
    this.#rewards.push(reward);
    this.#severity.push(0);
    return this.#keys.add(task, rollout);
  }

  /** Records that the row at `position` had a finding of this severity (its own checks). */
  flag(position: number, severity: 'warning' | 'error'): void {
    const flags = this.#severity.get(position);
    this.#severity.set(position, (flags & EVALUATION_ONLY) | Math.max(severityOf(flags), SEVERITY[severity]));
  }

  /** Records that the row at `position` is evaluation-only: without an error, it gets that verdict. */
  markEvaluationOnly(position: number): void {
    this.#severity.set(position, this.#severity.get(position) | EVALUATION_ONLY);
  }

  /** The key and task findings, task by task; `counts()` is ready once they have all been taken. */
  *findings(where: (origin: number) => string): Generator<KeyFinding> {
    const order = this.#keys.order();
    const rollouts: RolloutVerdictCounts = { total: 0, healthy: 0, warning: 0, unhealthy: 0, evaluation_only: 0, failed: 0 };
    const tasks: TaskVerdictCounts = { total: 0, healthy: 0, warning: 0, unhealthy: 0 };
    for (const [start, end] of this.#keys.taskRuns()) {
      const groups = this.#keyGroups(order, start, end);
      for (const group of groups) yield* this.#keyFindings(group, where);
      yield* this.#taskFindings(groups, where);
      let worst = 0;
      for (const group of groups) {
        const severity = Math.max(...group.map((position) => severityOf(this.#severity.get(position))));
        worst = Math.max(worst, severity);
        rollouts.total += 1;
        if (severity === SEVERITY.error) rollouts.unhealthy += 1;
        else if (!group.some((position) => this.#source(position) === 'result')) rollouts.failed += 1;
        else if (group.some((position) => (this.#severity.get(position) & EVALUATION_ONLY) !== 0)) rollouts.evaluation_only += 1;
        else if (severity === SEVERITY.warning) rollouts.warning += 1;
        else rollouts.healthy += 1;
      }
      tasks.total += 1;
      tasks[worst === SEVERITY.error ? 'unhealthy' : worst === SEVERITY.warning ? 'warning' : 'healthy'] += 1;
    }
    this.#counts = { rollouts, tasks };
  }

  counts(): { rollouts: RolloutVerdictCounts; tasks: TaskVerdictCounts } {
    if (!this.#counts) throw new Error('RunKeysHealth.counts() before findings() were all taken');
    return this.#counts;
  }

  #source(position: number): KeySource {
    return SOURCES[this.#sources.get(position)]!;
  }

  /** The positions of each key of one task, in reading order. */
  #keyGroups(order: Uint32Array, start: number, end: number): number[][] {
    const groups: number[][] = [];
    for (let i = start; i < end; i++) {
      const position = order[i]!;
      const last = groups.at(-1);
      if (last && this.#keys.rollout(last[0]!) === this.#keys.rollout(position)) last.push(position);
      else groups.push([position]);
    }
    return groups;
  }

  *#keyFindings(group: number[], where: (origin: number) => string): Generator<KeyFinding> {
    const of = (source: KeySource) => group.filter((position) => this.#source(position) === source);
    const [plans, results, failures] = [of('plan'), of('result'), of('failure')];
    const key = `${this.#keys.task(group[0]!)}:${this.#keys.rollout(group[0]!)}`;
    const at = (position: number) => where(this.#origins.get(position));
    if (plans.length > 1)
      yield this.#flagged(plans[1]!, group, healthFinding('duplicate-plan', `rollout ${key} is planned twice: ${at(plans[0]!)} and ${at(plans[1]!)}`));
    for (const second of results.slice(1)) {
      yield this.#flagged(second, group, healthFinding('duplicate-rollout', `rollout ${key} has two successful rows: ${at(results[0]!)} and ${at(second)}`));
    }
    if (this.#planned && plans.length === 0)
      yield this.#flagged(group[0]!, group, healthFinding('unplanned-rollout', `rollout ${key} is not in the materialized inputs`));
    if (plans.length > 0 && results.length === 0 && failures.length === 0) {
      yield this.#flagged(
        plans[0]!,
        group,
        healthFinding('missing-rollout', `rollout ${key} is planned (${at(plans[0]!)}) but has neither a result nor a failure`),
      );
    }
  }

  *#taskFindings(groups: number[][], where: (origin: number) => string): Generator<KeyFinding> {
    const task = this.#keys.task(groups[0]![0]!);
    const results = groups.flat().filter((position) => this.#source(position) === 'result');
    const failedKeys = groups.filter((group) => group.some((position) => this.#source(position) === 'failure'));
    if (results.length === 0 && failedKeys.length > 0) {
      const first = failedKeys[0]!.find((position) => this.#source(position) === 'failure')!;
      const finding = healthFinding(
        'task-all-failed',
        `task ${task}: none of its ${groups.length} rollouts succeeded; ${failedKeys.length} failed (first: ${where(this.#origins.get(first))})`,
      );
      for (const group of groups) for (const position of group) this.flag(position, 'error');
      yield { task, rollout: null, origin: this.#origins.get(first), finding };
    }
    // A result without a reward (NaN: its prompt never reached the model) was not scored at all.
    const scored = results.filter((position) => !Number.isNaN(this.#rewards.get(position)));
    if (scored.length >= 2 && scored.every((position) => this.#rewards.get(position) === 0)) {
      const finding = healthFinding('task-all-zero-reward', `task ${task}: all ${scored.length} successful rollouts scored 0`);
      for (const position of scored) this.flag(position, 'warning');
      yield { task, rollout: null, origin: this.#origins.get(scored[0]!), finding };
    }
  }

  #flagged(position: number, group: number[], finding: HealthFinding): KeyFinding {
    for (const member of group) this.flag(member, finding.severity);
    return { task: this.#keys.task(position), rollout: this.#keys.rollout(position), origin: this.#origins.get(position), finding };
  }
}

import { readMaterializedRow } from '../core/row-reader.js';
import type { AgentAggregate, GroupLevelMetrics } from '../metrics/index.js';
import { writeFileAtomic } from '../util/write-file-atomic.js';
import { ChunkedWriter, JsonRowReader, type RolloutKeyIndex } from './result-files.js';

/** How much of the plan has results: rollouts, and tasks complete, partial or without any. */
export interface ProfileCompletion {
  expected: number;
  completed: number;
  missing: number;
  tasks: { complete: number; partial: number; missing: number };
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
    for (const head of heads)
      if (head.group && (!first || head.group._ng_task_index < first.group._ng_task_index)) first = { iterator: head.iterator, group: head.group };
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

import { NumberList } from './number-list.js';

/**
 * Rollout keys (task, rollout) in the order they were added, sorted on demand: grouping by task,
 * finding a key and spotting a duplicate all come from one O(n log n) sort of positions, with no
 * per-key objects or strings (2 to 16 bytes a key, see `NumberList`; task indices stay exact up to 2^53).
 */
export class RolloutKeyList {
  readonly #tasks = new NumberList();
  readonly #rollouts = new NumberList();
  #order: Uint32Array | undefined;

  get length(): number {
    return this.#tasks.length;
  }

  /** Adds a key and returns its position. */
  add(task: number, rollout: number): number {
    this.#order = undefined;
    this.#rollouts.push(rollout);
    this.#tasks.push(task);
    return this.#tasks.length - 1;
  }

  task(position: number): number {
    return this.#tasks.get(position);
  }

  rollout(position: number): number {
    return this.#rollouts.get(position);
  }

  /** Positions sorted by (task, rollout), equal keys in the order they were added. */
  order(): Uint32Array {
    if (this.#order) return this.#order;
    const [tasks, rollouts] = [this.#tasks, this.#rollouts];
    const order = new Uint32Array(tasks.length);
    for (let position = 0; position < order.length; position++) order[position] = position;
    order.sort((a, b) => tasks.get(a) - tasks.get(b) || rollouts.get(a) - rollouts.get(b) || a - b);
    this.#order = order;
    return order;
  }

  /** The ranges [start, end) of `order()` that share a task, in task order. */
  *taskRuns(): Generator<[number, number]> {
    const order = this.order();
    let end = 0;
    for (let start = 0; start < order.length; start = end) {
      const task = this.task(order[start]!);
      for (end = start + 1; end < order.length && this.task(order[end]!) === task; end += 1);
      yield [start, end];
    }
  }

  /** The first two positions (in adding order) that hold the same key, if any. */
  duplicate(): [number, number] | undefined {
    const order = this.order();
    for (let i = 1; i < order.length; i++) {
      const [a, b] = [order[i - 1]!, order[i]!];
      if (this.#sameKey(a, b)) return [a, b];
    }
    return undefined;
  }

  /** The position of a key (the first added, if it repeats), or -1. */
  find(task: number, rollout: number): number {
    const order = this.order();
    const before = (position: number) => this.task(position) < task || (this.task(position) === task && this.rollout(position) < rollout);
    let low = 0;
    let high = order.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (before(order[middle]!)) low = middle + 1;
      else high = middle;
    }
    return low < order.length && this.task(order[low]!) === task && this.rollout(order[low]!) === rollout ? order[low]! : -1;
  }

  #sameKey(a: number, b: number): boolean {
    return this.task(a) === this.task(b) && this.rollout(a) === this.rollout(b);
  }
}

import type { ChatTool } from '../../src/core/chat-tool.js';
import { EpisodeTask } from '../../src/core/index.js';
import type { StepResultInput } from '../../src/core/step-result.js';
import type { Environment, EnvironmentTurn } from '../../src/environments/environment.js';
import type { SimClock } from '../../src/testing/index.js';
import { createSeededRandom, mixSeed } from '../../src/util/seeded-random.js';

// Words most tokenizers spell as one token each (with the space before them): text of n words is about n tokens.
const WORDS = 'the of and to in is it that for on was with as be at by this had not are but from or have an they which one you were all we'.split(' ');

/** About `tokens` tokens of seeded words. */
export function words(tokens: number, seed: number): string {
  const random = createSeededRandom(seed);
  return Array.from({ length: tokens }, () => random.pick(WORDS)).join(' ');
}

/** What a workload's episodes do, per task: how many turns, how long each observation is, how long a tool takes. */
export interface WorkloadShape {
  /** Turns of a task (its environment ends the episode after them). */
  turns: (task: number) => number;
  /** Tokens in each observation (a tool's output). */
  observationTokens: number;
  /** Simulated seconds one environment step takes (running the tool). */
  stepSeconds: number;
}

interface Metadata {
  task: number;
}

/**
 * The environment of the scheduling workloads: each task runs its planned number of turns, every step
 * takes `stepSeconds` of simulated time on the fleet's clock and answers a tool output of
 * `observationTokens` seeded words, and the last step ends the episode. Nothing is scored.
 */
export class FleetWorkloadEnvironment implements Environment<Metadata> {
  readonly name = 'fleet-workload';
  readonly #shape: WorkloadShape;
  readonly #clock: SimClock;

  constructor(shape: WorkloadShape, clock: SimClock) {
    this.#shape = shape;
    this.#clock = clock;
  }

  async reset(data: unknown): Promise<{ metadata: Metadata }> {
    return { metadata: { task: (data as { task: number }).task } };
  }

  async step(turn: EnvironmentTurn<Metadata>, signal: AbortSignal): Promise<StepResultInput> {
    if (this.#shape.stepSeconds > 0) await this.#clock.sleepUntil(this.#clock.now() + this.#shape.stepSeconds, signal);
    const index = turn.messages.filter((message) => message.role === 'assistant').length - 1;
    const last = index + 1 >= this.#shape.turns(turn.metadata.task);
    return {
      observation: last ? [] : [{ role: 'tool', content: words(this.#shape.observationTokens, mixSeed(turn.metadata.task, index)) }],
      reward: 0,
      terminated: last,
    };
  }
}

/** A task: an optional shared system prompt and tools, then a user prompt of `promptTokens` seeded words of its own. */
export function workloadTask(index: number, promptTokens: number, shared: { system?: string; tools?: ChatTool[] } = {}): EpisodeTask {
  const user = { role: 'user' as const, content: `Task ${index}: ${words(promptTokens, mixSeed(7, index))}` };
  return EpisodeTask.parse({
    id: `task-${index}`,
    index,
    messages: shared.system === undefined ? [user] : [{ role: 'system', content: shared.system }, user],
    ...(shared.tools ? { tools: shared.tools } : {}),
    data: { task: index },
  });
}

import type { Environment, EnvironmentTurn, ObservationTokens, ResetResult } from '../environments/environment.js';
import type { StepResultInput } from '../core/step-result.js';
import { abortableDelay } from '../util/abortable-delay.js';

export interface ScriptedEnvironmentOptions<Metadata> {
  name?: string;
  reset?: (data: unknown) => ResetResult<Metadata> | Promise<ResetResult<Metadata>>;
  /** Answers a turn; `turn` is the number of assistant messages before this one. Throw to simulate a failing environment. */
  step: (turn: EnvironmentTurn<Metadata>, index: number) => StepResultInput | Promise<StepResultInput>;
  /** Wait this long in every step (honours the abort signal). */
  delay_ms?: number;
  /** How its observations become tokens (see `Environment.observationTokens`; default `template`). */
  observationTokens?: ObservationTokens;
}

/** An environment driven by a function, recording every turn it was handed. */
export class ScriptedEnvironment<Metadata = unknown> implements Environment<Metadata> {
  readonly name: string;
  readonly observationTokens?: ObservationTokens;
  readonly turns: EnvironmentTurn<Metadata>[] = [];
  readonly #options: ScriptedEnvironmentOptions<Metadata>;

  constructor(options: ScriptedEnvironmentOptions<Metadata>) {
    this.name = options.name ?? 'scripted';
    if (options.observationTokens) this.observationTokens = options.observationTokens;
    this.#options = options;
  }

  async reset(data: unknown): Promise<ResetResult<Metadata>> {
    return this.#options.reset ? this.#options.reset(data) : { metadata: data as Metadata };
  }

  async step(turn: EnvironmentTurn<Metadata>, signal: AbortSignal): Promise<StepResultInput> {
    this.turns.push(structuredClone(turn));
    if (this.#options.delay_ms) await abortableDelay(this.#options.delay_ms, signal);
    const index = turn.messages.filter((message) => message.role === 'assistant').length - 1;
    return this.#options.step(turn, index);
  }
}

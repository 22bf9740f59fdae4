import type { z } from 'zod';
import type { Environment } from './environment.js';

type Awaitable<T> = T | Promise<T>;

/** What a gymnasium-style step returns: the next observation text, the reward, and whether the game ended. */
export interface GymnasiumStep<State> {
  observation: string;
  reward: number;
  terminated: boolean;
  truncated?: boolean;
  /** Extra facts about the step (NeMo Gym's `info`); kept on the episode's metadata. */
  info?: Record<string, unknown>;
  state: State;
}

/** A game in gymnasium's shape (NeMo Gym's gymnasium resources: blackjack, …), over text actions. */
export interface GymnasiumSpec<State> {
  name: string;
  /** The task data `reset` reads (see `Environment.taskSchema`). */
  taskSchema?: z.ZodType;
  /** A new game from the task's data: the first observation and the game's state (JSON-serializable). */
  reset(data: unknown): Awaitable<{ observation: string; state: State }>;
  /** The model's whole reply is the action. */
  step(state: State, action: string): Awaitable<GymnasiumStep<State>>;
}

interface GymnasiumEpisode<State> {
  state: State;
  info: Record<string, unknown>;
}

/**
 * The gymnasium-style reset/step loop: reset gives the first observation (a user turn), every reply is
 * an action, every observation comes back as a user turn, and `terminated` / `truncated` end the game.
 */
export function gymnasiumEnvironment<State>(spec: GymnasiumSpec<State>): Environment<GymnasiumEpisode<State>> {
  return {
    name: spec.name,
    opensConversation: true,
    ...(spec.taskSchema ? { taskSchema: spec.taskSchema } : {}),
    async reset(data) {
      const { observation, state } = await spec.reset(data);
      return { metadata: { state, info: {} }, observation: [{ role: 'user', content: observation }] };
    },
    async step({ messages, metadata }) {
      const result = await spec.step(metadata.state, messages.at(-1)?.content ?? '');
      return {
        observation: [{ role: 'user', content: result.observation }],
        reward: result.reward,
        terminated: result.terminated,
        truncated: result.truncated ?? false,
        metadata: { state: result.state, info: result.info ?? {} },
      };
    },
  };
}

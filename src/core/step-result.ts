import { z } from 'zod';
import { Message } from './message.js';
import { ToolCall } from './tool-call.js';

/** The environment's answer to one turn. Validated by the engine at the boundary. */
export const StepResult = z.object({
  /** Messages shown to the model next (role `environment`, `tool` or `user`). Required, possibly empty-content, when the episode goes on. */
  observation: z.array(Message).default([]),
  reward: z.number().refine(Number.isFinite, 'reward must be a finite number'),
  /** Named parts of `reward` (multi-reward, GDPO); they must add up to `reward`. */
  reward_components: z.record(z.string(), z.number()).optional(),
  /** The episode reached a natural end. */
  terminated: z.boolean(),
  /** The environment cut the episode short (e.g. a move limit); ends it like `terminated`. */
  truncated: z.boolean().default(false),
  /** New state; `null` or absent keeps the previous one (NeMo RL's convention). */
  metadata: z.unknown().optional(),
  /** Stop strings for the next turn; absent keeps the current ones, `null` clears them. */
  next_stop_strings: z.array(z.string()).nullable().optional(),
  /** The answer the environment extracted, if any (for majority voting). */
  answer: z.string().nullable().optional(),
  /**
   * The tool calls the environment read in the assistant turn it just stepped, with the ids its `tool`
   * messages answer. The record shows them on that turn's message (`tool_calls`); the sampled text
   * keeps its markup, since it is what was sampled and what the chat template renders.
   */
  tool_calls: z.array(ToolCall).optional(),
  /**
   * What the environment reports about the episode beyond the reward (a NeMo Gym verifier's
   * `extracted_answer`-like fields, gymnasium's `info`): JSON values by name, merged over the steps (a
   * later step's value wins), kept on the record as `env_fields` and written at the top of output rows.
   */
  fields: z.record(z.string(), z.unknown()).optional(),
});
export type StepResult = z.infer<typeof StepResult>;
export type StepResultInput = z.input<typeof StepResult>;

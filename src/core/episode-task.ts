import { z } from 'zod';
import { ChatTool } from './chat-tool.js';
import { Message } from './message.js';
import { SamplingOverrides } from './sampling-params.js';

/** One task the engine runs episodes for: the opening messages plus the data its environment reads. */
export const EpisodeTask = z.object({
  /** Stable identity of the task across runs (e.g. the dataset row's key). */
  id: z.string(),
  /** Position of the task in its dataset (NeMo Gym's `_ng_task_index`). */
  index: z.number().int().nonnegative(),
  messages: z.array(Message),
  /** Tools offered to the model; the chat template renders them into the prompt. */
  tools: z.array(ChatTool).optional(),
  /** Task fields the environment reads in `reset` (ground truth, board config, …). */
  data: z.unknown().default({}),
  /** Stop strings for the first turn; later turns use what the environment returns. */
  stop_strings: z.array(z.string()).optional(),
  /** Per-task overrides of the run's sampling params. */
  sampling: SamplingOverrides.optional(),
});
export type EpisodeTask = z.infer<typeof EpisodeTask>;
export type EpisodeTaskInput = z.input<typeof EpisodeTask>;

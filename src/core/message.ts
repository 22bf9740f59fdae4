import { z } from 'zod';
import { ToolCall } from './tool-call.js';

export const Role = z.enum(['system', 'user', 'assistant', 'tool', 'environment']);
export type Role = z.infer<typeof Role>;

/**
 * One message of an episode's log. Concatenating `token_ids` over a log gives the exact token
 * sequence the policy saw and produced (NeMo RL's flat message invariant).
 */
export const Message = z
  .object({
    role: Role,
    content: z.string(),
    /** Reasoning given apart from the content (Qwen3 and DeepSeek templates render it as `<think>`). */
    reasoning_content: z.string().optional(),
    tool_calls: z.array(ToolCall).optional(),
    /** For `tool` messages: the call this message answers. */
    tool_call_id: z.string().optional(),
    /** The tokens this message contributes to the sequence; for sampled turns, exactly what was sampled. */
    token_ids: z.array(z.number().int().nonnegative()).optional(),
    /** Only on sampled assistant turns: the sampler's logprob of each token in `token_ids`. */
    generation_logprobs: z.array(z.number()).optional(),
  })
  .superRefine((message, context) => {
    if (message.generation_logprobs === undefined) return;
    if (message.role !== 'assistant') {
      context.addIssue({ code: 'custom', path: ['generation_logprobs'], message: 'only assistant messages carry generation_logprobs' });
    }
    if (message.token_ids?.length !== message.generation_logprobs.length) {
      context.addIssue({
        code: 'custom',
        path: ['generation_logprobs'],
        message: `has ${message.generation_logprobs.length} entries but token_ids has ${message.token_ids?.length ?? 0}`,
      });
    }
  });
export type Message = z.infer<typeof Message>;

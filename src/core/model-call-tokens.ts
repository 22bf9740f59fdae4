import type { Message } from './message.js';

/** NeMo Gym's `…ForTraining` fields of one model call: what NeMo RL's Gym postprocessing trains on. */
export interface TrainingTokens {
  /** The whole sequence before the call's generation: every earlier message's tokens, template included. */
  prompt_token_ids: number[];
  generation_token_ids: number[];
  generation_log_probs: number[];
}

/**
 * Each sampled assistant message from message `from` on as a model call (its prompt: everything
 * before it). The one derivation of a row's second copy of its tokens: `collect` writes it on
 * `response.output`, health checks that copy against it. Undefined when a message has no ids, or a
 * sampled one no logprobs (a backend that gives none): there is then no call to train on.
 */
export function modelCallTokens(messages: readonly Message[], from: number): TrainingTokens[] | undefined {
  const calls: TrainingTokens[] = [];
  let length = 0;
  for (const [i, message] of messages.entries()) {
    if (message.token_ids === undefined) return undefined;
    if (i >= from && message.role === 'assistant') {
      if (message.generation_logprobs === undefined) return undefined;
      calls.push({
        prompt_token_ids: promptIds(messages, i, length),
        generation_token_ids: message.token_ids,
        generation_log_probs: message.generation_logprobs,
      });
    }
    length += message.token_ids.length;
  }
  return calls;
}

/** The token ids of the messages before `end`, `length` of them, in one array sized once. */
function promptIds(messages: readonly Message[], end: number, length: number): number[] {
  const ids = new Array<number>(length);
  let at = 0;
  // Indexed, not for…of: for…of allocated an iterator result per id here (collect writes every row's).
  for (let i = 0; i < end; i++) {
    const part = messages[i]!.token_ids!;
    for (let j = 0; j < part.length; j++) ids[at++] = part[j]!;
  }
  return ids;
}

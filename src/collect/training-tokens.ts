import type { Message } from '../core/message.js';

/** NeMo Gym's `…ForTraining` fields, on the last output item of each model call. */
export interface TrainingTokens {
  /** The whole sequence before the call's generation: every earlier message's tokens, template included. */
  prompt_token_ids: number[];
  generation_token_ids: number[];
  generation_log_probs: number[];
}

/**
 * `response.output` items with each model call's tokens on its last item (a message or a function call),
 * as NeMo Gym's vLLM model attaches them, so NeMo RL's Gym postprocessing trains from the row unchanged.
 * A call's items are a run of model items (reasoning, assistant message, function call); runs are
 * matched with the sampled assistant messages from `from` on, in order. When they do not pair up one
 * to one (an output function that merges or drops turns), or a turn has no token ids (a backend that
 * gives none), the items are returned as they were: a wrong pairing would train on the wrong tokens,
 * and the messages keep every id anyway.
 */
export function withTrainingTokens(items: readonly unknown[], messages: readonly Message[], from: number): unknown[] {
  const output = [...items];
  const lastItems = lastItemOfEachRun(items);
  const calls = lastItems.length === 0 ? undefined : modelCalls(messages, from);
  if (calls === undefined || calls.length !== lastItems.length) return output;
  for (let i = 0; i < lastItems.length; i++) {
    const at = lastItems[i]!;
    output[at] = { ...(items[at] as object), ...calls[i] };
  }
  return output;
}

/** Each sampled assistant message from `from` on with its prompt (everything before it); undefined when a message has no ids. */
function modelCalls(messages: readonly Message[], from: number): TrainingTokens[] | undefined {
  const calls: TrainingTokens[] = [];
  let length = 0;
  for (const [i, message] of messages.entries()) {
    if (message.token_ids === undefined) return undefined;
    if (i >= from && message.role === 'assistant') {
      if (message.generation_logprobs === undefined) return undefined;
      calls.push({ prompt_token_ids: promptIds(messages, i, length), generation_token_ids: message.token_ids, generation_log_probs: message.generation_logprobs });
    }
    length += message.token_ids.length;
  }
  return calls;
}

/** The token ids of the messages before `end`, `length` of them, in one array sized once. */
function promptIds(messages: readonly Message[], end: number, length: number): number[] {
  const ids = new Array<number>(length);
  let at = 0;
  for (let i = 0; i < end; i++) {
    for (const id of messages[i]!.token_ids!) ids[at++] = id;
  }
  return ids;
}

/** The index of the last item of every run of model items. */
function lastItemOfEachRun(items: readonly unknown[]): number[] {
  const last: number[] = [];
  for (let i = 0; i < items.length; i++) {
    if (isModelItem(items[i]) && !isModelItem(items[i + 1])) last.push(i);
  }
  return last;
}

function isModelItem(item: unknown): boolean {
  if (typeof item !== 'object' || item === null) return false;
  const { type, role } = item as { type?: unknown; role?: unknown };
  return type === 'reasoning' || type === 'function_call' || (type === 'message' && role === 'assistant');
}

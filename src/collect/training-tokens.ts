import type { Message } from '../core/message.js';
import { modelCallTokens } from '../core/model-call-tokens.js';

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
  const calls = lastItems.length === 0 ? undefined : modelCallTokens(messages, from);
  if (calls === undefined || calls.length !== lastItems.length) return output;
  for (let i = 0; i < lastItems.length; i++) {
    const at = lastItems[i]!;
    output[at] = { ...(items[at] as object), ...calls[i] };
  }
  return output;
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

import { InvalidRowError } from './errors/invalid-row-error.js';
import type { Message } from './message.js';
import { isRecord } from '../util/is-record.js';

/**
 * A message as a row of schema version 3 may store it: its `token_ids` (and a sampled message's
 * `generation_logprobs`) left to `response.output`'s training fields, only their number kept.
 */
export type CompactMessage = Omit<Message, 'token_ids' | 'generation_logprobs'> & { token_count: number };

/** The part of a row whose tokens are stored once. */
interface TokenRow {
  messages?: readonly Message[] | undefined;
  response?: { output?: readonly unknown[] | undefined } | undefined;
}

/** What NeMo Gym's vLLM model puts on a model call's last output item, and NeMo RL trains on. */
interface TrainingCall {
  prompt_token_ids: readonly number[];
  generation_token_ids: readonly number[];
  generation_log_probs: readonly number[];
}

/**
 * A row as `collect` stores it: the ids of every message up to the last model call left to
 * `response.output`, where NeMo Gym's training fields carry them for NeMo RL (the last call's
 * `prompt_token_ids` and `generation_token_ids` are that whole sequence, each call's
 * `generation_log_probs` its message's logprobs), each such message keeping its `token_count`. Messages
 * after the last call (the last observation) keep their ids. The calls are the row's last assistant
 * messages, one each, in order (`modelCallTokens`); a row whose output does not hold every id and
 * logprob it would drop exactly is returned as it is, so `restoreRowTokens` always gives back the row.
 */
export function compactRowTokens<Row extends TokenRow>(row: Row): Row | (Omit<Row, 'messages'> & { messages: (Message | CompactMessage)[] }) {
  const { messages } = row;
  const calls = trainingCalls(row.response?.output);
  if (messages === undefined || calls.length === 0) return row;
  const sampled = lastAssistants(messages, calls.length);
  if (sampled === undefined || !coveredExactly(messages, sampled, calls)) return row;
  const end = sampled.at(-1)!;
  return { ...row, messages: messages.map((message, i) => (i <= end ? compactMessage(message) : message)) };
}

/**
 * `compactRowTokens` undone: each message with a `token_count` gets its `token_ids` back from the
 * training fields of `response.output` (and a sampled one its `generation_logprobs`), so every reader
 * sees rows of every version alike. A row with no such message is returned as it is; one whose output
 * cannot give them back is an `InvalidRowError` naming the message.
 */
export function restoreRowTokens(row: Record<string, unknown>, where: string): Record<string, unknown> {
  const { messages } = row;
  if (!Array.isArray(messages) || !messages.some((message) => isRecord(message) && 'token_count' in message)) return row;
  const calls = trainingCalls(isRecord(row.response) ? row.response.output : undefined);
  const sampled = lastAssistants(messages, calls.length);
  const prompt = calls.at(-1)?.prompt_token_ids ?? [];
  const restored: unknown[] = [];
  let offset = 0;
  let next = 0;
  for (const [i, message] of messages.entries()) {
    const call = sampled?.[next] === i ? calls[next++] : undefined;
    if (!isRecord(message) || !('token_count' in message)) {
      restored.push(message);
      offset += isRecord(message) && Array.isArray(message.token_ids) ? message.token_ids.length : 0;
      continue;
    }
    const { token_count: count, ...rest } = message;
    const field = `messages.${i}.token_count`;
    if (!Number.isSafeInteger(count) || (count as number) < 0)
      throw new InvalidRowError(where, field, `expected a count of tokens, got ${JSON.stringify(count)}`);
    const length = count as number;
    if (call !== undefined) {
      if (call.prompt_token_ids.length !== offset || call.generation_token_ids.length !== length)
        throw new InvalidRowError(where, field, `${length} tokens at ${offset} do not match their model call on response.output`);
      restored.push({ ...rest, token_ids: call.generation_token_ids, generation_logprobs: call.generation_log_probs });
    } else {
      if (offset + length > prompt.length)
        throw new InvalidRowError(where, field, `${length} tokens at ${offset} lie past the last model call's prompt_token_ids on response.output`);
      restored.push({ ...rest, token_ids: prompt.slice(offset, offset + length) });
    }
    offset += length;
  }
  return { ...row, messages: restored };
}

/** The output items that carry a model call's training fields, in order. */
function trainingCalls(output: unknown): TrainingCall[] {
  if (!Array.isArray(output)) return [];
  return output.filter(
    (item): item is TrainingCall =>
      isRecord(item) && Array.isArray(item.generation_token_ids) && Array.isArray(item.prompt_token_ids) && Array.isArray(item.generation_log_probs),
  );
}

/** The indices of the last `count` assistant messages; undefined when there are fewer. */
function lastAssistants(messages: readonly unknown[], count: number): number[] | undefined {
  const assistants: number[] = [];
  for (const [i, message] of messages.entries()) if (isRecord(message) && message.role === 'assistant') assistants.push(i);
  return assistants.length < count ? undefined : assistants.slice(assistants.length - count);
}

/** Whether the calls hold every id and logprob of the messages up to the last sampled one, as `restoreRowTokens` reads them back. */
function coveredExactly(messages: readonly Message[], sampled: readonly number[], calls: readonly TrainingCall[]): boolean {
  const prompt = calls.at(-1)!.prompt_token_ids;
  let offset = 0;
  let next = 0;
  for (let i = 0; i <= sampled.at(-1)!; i++) {
    const { token_ids: ids, generation_logprobs: logprobs } = messages[i]!;
    if (ids === undefined) return false;
    if (sampled[next] === i) {
      const call = calls[next++]!;
      if (call.prompt_token_ids.length !== offset || !sameNumbers(ids, call.generation_token_ids)) return false;
      if (logprobs === undefined || !sameNumbers(logprobs, call.generation_log_probs)) return false;
    } else if (logprobs !== undefined || !isSliceOf(ids, prompt, offset)) return false;
    offset += ids.length;
  }
  return true;
}

/** The same numbers (the same array, as `modelCallTokens` shares a message's with its call, checked at once). */
function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  return a === b || (a.length === b.length && isSliceOf(a, b, 0));
}

/** Whether `whole` holds `part` from `at` on. */
function isSliceOf(part: readonly number[], whole: readonly number[], at: number): boolean {
  if (at + part.length > whole.length) return false;
  for (let i = 0; i < part.length; i++) if (part[i] !== whole[at + i]) return false;
  return true;
}

function compactMessage(message: Message): CompactMessage {
  const { token_ids: ids, generation_logprobs: _logprobs, ...rest } = message;
  return { ...rest, token_count: ids!.length };
}

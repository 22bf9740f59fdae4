import type { Generation } from './generator.js';
import type { GenerationStep } from './sampling.js';

/** An output item as the route builds it. */
export type ResponsesOutputItem = Record<string, unknown> & { type: string; id: string };
type Item = ResponsesOutputItem;
export type ResponsesResponse = Record<string, unknown> & { status: string; output: Item[] };

/** How the route answers: the response before anything is sampled, and whole once the generation is. */
export interface ResponsesStreamPlan {
  /** The response as `response.created` shows it: `in_progress`, no output yet, as OpenAI sends it. */
  pending: ResponsesResponse;
  finished: (generation: Generation) => ResponsesResponse;
  /**
   * Absent when the reply is read for tool calls (its items are known only from its whole text, so they
   * come at its end); otherwise the one message item the reply will be, begun: its text then streams a
   * token a delta as it is sampled.
   */
  message: Item | undefined;
}

/**
 * A Responses answer as the typed events OpenAI streams, each with its `sequence_number`, sent as the
 * generation goes: `response.created`, `response.in_progress`, then per output item
 * `output_item.added`, its content (a message's text one token a delta; a function call's arguments as
 * one delta), `output_item.done` with the item whole (NeMo Gym's training fields included), and
 * `response.completed`, or `response.incomplete` when cut at `max_output_tokens`.
 */
export async function* responsesEvents(
  steps: AsyncIterable<GenerationStep>,
  plan: ResponsesStreamPlan,
): AsyncGenerator<Record<string, unknown>, void, undefined> {
  let sequence = 0;
  const event = (type: string, fields: Record<string, unknown>) => ({ type, sequence_number: sequence++, ...fields });
  const held: string[] = [];
  yield event('response.created', { response: plan.pending });
  yield event('response.in_progress', { response: plan.pending });
  if (plan.message) yield* messageOpening(event, plan.message, 0);
  for await (const step of steps) {
    const text = step.piece ? step.piece.text : step.rest;
    if (plan.message && text !== '') yield textDelta(event, plan.message, 0, text);
    if (!plan.message) held.push(text);
    if (!step.generation) continue;
    const response = plan.finished(step.generation);
    for (const [index, item] of response.output.entries()) {
      if (item.type !== 'message') yield* functionCallEvents(event, item, index);
      else if (plan.message) yield* messageClosing(event, item, index);
      else {
        yield* messageOpening(event, item, index);
        // A message beside tool calls holds only the text around them, which the tokens cannot be cut to: it comes whole.
        const deltas = response.output.length === 1 ? held : [messageText(item)];
        for (const delta of deltas) if (delta !== '') yield textDelta(event, item, index, delta);
        yield* messageClosing(event, item, index);
      }
    }
    yield event(response.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response });
  }
}

type Event = (type: string, fields: Record<string, unknown>) => Record<string, unknown>;

const messageText = (item: Item) => (item.content as { text: string }[])[0]!.text;
const contentAt = (item: Item, output_index: number) => ({ item_id: item.id, output_index, content_index: 0 });

function* messageOpening(event: Event, item: Item, output_index: number): Generator<Record<string, unknown>> {
  yield event('response.output_item.added', { output_index, item: { ...withoutTrainingFields(item), status: 'in_progress', content: [] } });
  yield event('response.content_part.added', { ...contentAt(item, output_index), part: { type: 'output_text', text: '', annotations: [] } });
}

const textDelta = (event: Event, item: Item, output_index: number, delta: string) =>
  event('response.output_text.delta', { ...contentAt(item, output_index), delta, logprobs: [] });

function* messageClosing(event: Event, item: Item, output_index: number): Generator<Record<string, unknown>> {
  const part = (item.content as { text: string }[])[0]!;
  yield event('response.output_text.done', { ...contentAt(item, output_index), text: part.text, logprobs: [] });
  yield event('response.content_part.done', { ...contentAt(item, output_index), part });
  yield event('response.output_item.done', { output_index, item });
}

function* functionCallEvents(event: Event, item: Item, output_index: number): Generator<Record<string, unknown>> {
  const at = { item_id: item.id, output_index };
  yield event('response.output_item.added', { output_index, item: { ...withoutTrainingFields(item), status: 'in_progress', arguments: '' } });
  yield event('response.function_call_arguments.delta', { ...at, delta: item.arguments });
  yield event('response.function_call_arguments.done', { ...at, name: item.name, arguments: item.arguments });
  yield event('response.output_item.done', { output_index, item });
}

/** The tokens are known only once the item is done; the opening event shows the item as begun. */
function withoutTrainingFields(item: Item): Item {
  const { prompt_token_ids: _prompt, generation_token_ids: _generation, generation_log_probs: _logprobs, ...rest } = item;
  return rest as Item;
}

import type { TokenPiece } from './token-pieces.js';

/** An output item as the route builds it. */
export type ResponsesOutputItem = Record<string, unknown> & { type: string; id: string };
type Item = ResponsesOutputItem;
type Response = Record<string, unknown> & { status: string; output: Item[] };

/**
 * A finished Responses answer as the typed events OpenAI streams (`response.created` …
 * `response.completed`, or `response.incomplete` when cut at `max_output_tokens`), each with its
 * `sequence_number`. Per output item: `output_item.added`, its content (a message's text one token a
 * delta, from `textPieces`; a function call's arguments as one delta), then `output_item.done` with
 * the item whole, NeMo Gym's training fields included. The `response` snapshots before the end are
 * `in_progress` with no output, as OpenAI sends them.
 */
export function responsesEvents(response: Response, textPieces: readonly TokenPiece[] | undefined): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  const emit = (type: string, fields: Record<string, unknown>) => events.push({ type, sequence_number: events.length, ...fields });
  const pending = { ...response, status: 'in_progress', output: [], usage: null, incomplete_details: null };
  emit('response.created', { response: pending });
  emit('response.in_progress', { response: pending });
  response.output.forEach((item, output_index) => {
    if (item.type === 'message') messageEvents(emit, item, output_index, textPieces);
    else functionCallEvents(emit, item, output_index);
  });
  emit(response.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response });
  return events;
}

type Emit = (type: string, fields: Record<string, unknown>) => void;

function messageEvents(emit: Emit, item: Item, output_index: number, textPieces: readonly TokenPiece[] | undefined): void {
  const part = (item.content as { text: string }[])[0]!;
  const at = { item_id: item.id, output_index, content_index: 0 };
  emit('response.output_item.added', { output_index, item: { ...withoutTrainingFields(item), status: 'in_progress', content: [] } });
  emit('response.content_part.added', { ...at, part: { type: 'output_text', text: '', annotations: [] } });
  // A message beside tool calls holds only the text around them, which the pieces cannot be cut to: it comes whole.
  const deltas = textPieces ? textPieces.map((piece) => piece.text) : [part.text];
  for (const delta of deltas) if (delta !== '') emit('response.output_text.delta', { ...at, delta, logprobs: [] });
  emit('response.output_text.done', { ...at, text: part.text, logprobs: [] });
  emit('response.content_part.done', { ...at, part });
  emit('response.output_item.done', { output_index, item });
}

function functionCallEvents(emit: Emit, item: Item, output_index: number): void {
  const at = { item_id: item.id, output_index };
  emit('response.output_item.added', { output_index, item: { ...withoutTrainingFields(item), status: 'in_progress', arguments: '' } });
  emit('response.function_call_arguments.delta', { ...at, delta: item.arguments });
  emit('response.function_call_arguments.done', { ...at, name: item.name, arguments: item.arguments });
  emit('response.output_item.done', { output_index, item });
}

/** The tokens are known only once the item is done; the opening event shows the item as begun. */
function withoutTrainingFields(item: Item): Item {
  const { prompt_token_ids: _prompt, generation_token_ids: _generation, generation_log_probs: _logprobs, ...rest } = item;
  return rest as Item;
}

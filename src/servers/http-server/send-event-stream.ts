import type { ServerResponse } from 'node:http';
import { once } from 'node:events';
import { errorBody } from './http-server-core.js';

/**
 * How OpenAI frames a stream: chat and completions send `data: {json}\n\n` per chunk, then
 * `data: [DONE]\n\n`; the Responses API names each event by its `type` (`event: response.created`)
 * and ends with its last event, no sentinel.
 */
export type EventFraming = 'data-then-done' | 'typed';

/**
 * Sends `events` as server-sent events, framed as `framing` says, each as soon as it comes; the headers
 * go at once, as vLLM sends them, so the client knows its request is being answered while the first
 * event is still being made. A failure once the stream is under way is sent as OpenAI's error event
 * (`data: {"error": …}` then `[DONE]`, or the Responses API's `error` event), which the SDKs raise as
 * an API error, and the stream ends. Waits for the client to take each event (backpressure), and stops
 * at once when the connection is gone (the client left or the server is closing): nothing is written
 * into a closed socket, and the events' iteration is ended, which stops whatever produces them.
 */
export async function sendEventStream(response: ServerResponse, events: AsyncIterable<unknown>, framing: EventFraming = 'data-then-done'): Promise<void> {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  response.flushHeaders();
  const iterator = events[Symbol.asyncIterator]();
  let sent = 0;
  try {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      if (!(await write(response, frame(next.value, framing)))) return;
      sent += 1;
    }
  } catch (error) {
    if (response.destroyed) return;
    const { error: detail } = errorBody(error);
    // Numbered after the events sent, as every Responses event is.
    const failure =
      framing === 'typed' ? { type: 'error', sequence_number: sent, code: detail.code, message: detail.message, param: detail.param } : { error: detail };
    if (!(await write(response, frame(failure, framing)))) return;
  } finally {
    await iterator.return?.();
  }
  if (framing === 'typed' || (await write(response, 'data: [DONE]\n\n'))) response.end();
}

function frame(event: unknown, framing: EventFraming): string {
  const data = `data: ${JSON.stringify(event)}\n\n`;
  return framing === 'typed' ? `event: ${(event as { type: string }).type}\n${data}` : data;
}

/** False when the connection went away before the text could be taken. */
async function write(response: ServerResponse, text: string): Promise<boolean> {
  if (response.destroyed) return false;
  if (response.write(text)) return true;
  // Whichever comes first; the other listener is then removed (its promise settles quietly), so a long stream does not pile them up.
  const settled = new AbortController();
  const drained = await Promise.race([
    once(response, 'drain', { signal: settled.signal }).then(
      () => true,
      () => false,
    ),
    once(response, 'close', { signal: settled.signal }).then(
      () => false,
      () => false,
    ),
  ]);
  settled.abort();
  return drained && !response.destroyed;
}

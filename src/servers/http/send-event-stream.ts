import type { ServerResponse } from 'node:http';
import { once } from 'node:events';

/**
 * Sends `events` as server-sent events the way OpenAI streams: `data: {json}\n\n` each, then
 * `data: [DONE]\n\n`. Waits for the client to take each event (backpressure), and stops at once when the
 * connection is gone (the client left or the server is closing): nothing is written into a closed socket.
 */
export async function sendEventStream(response: ServerResponse, events: Iterable<unknown>): Promise<void> {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const event of events) {
    if (!(await write(response, `data: ${JSON.stringify(event)}\n\n`))) return;
  }
  if (await write(response, 'data: [DONE]\n\n')) response.end();
}

/** False when the connection went away before the text could be taken. */
async function write(response: ServerResponse, text: string): Promise<boolean> {
  if (response.destroyed) return false;
  if (response.write(text)) return true;
  // Whichever comes first; the other listener is then removed (its promise settles quietly), so a long stream does not pile them up.
  const settled = new AbortController();
  const drained = await Promise.race([once(response, 'drain', { signal: settled.signal }).then(() => true, () => false), once(response, 'close', { signal: settled.signal }).then(() => false, () => false)]);
  settled.abort();
  return drained && !response.destroyed;
}

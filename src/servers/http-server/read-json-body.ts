import type { IncomingMessage } from 'node:http';
import { RequestRejectedError } from './request-rejected-error.js';

/** The request's JSON body (undefined when empty), read only up to `maxBytes` (see `readBody`). */
export async function readJsonBody(request: IncomingMessage, maxBytes: number): Promise<unknown> {
  const bytes = await readBody(request, maxBytes);
  if (bytes.length === 0) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new RequestRejectedError(400, `the request body is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * A declared `content-length` over the limit is refused before a byte is read, and a chunked body
 * as soon as it crosses the limit, so nothing past the limit is ever held. The stream is paused, not
 * destroyed, on refusal: destroying it would take the socket, and the 413 with it.
 */
function readBody(request: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(request.headers['content-length']);
  if (declared > maxBytes) return Promise.reject(tooLarge(`${declared} bytes`, maxBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      request.off('data', onData);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      chunks.length = 0;
      request.pause();
      settle(() => reject(tooLarge(`more than ${maxBytes} bytes`, maxBytes)));
    };
    const cutShort = () => settle(() => reject(new RequestRejectedError(400, 'the request body was cut short')));
    request.on('data', onData);
    request.once('end', () => settle(() => resolve(Buffer.concat(chunks, size))));
    // An 'error' (the client reset) or 'close' before 'end' means the body was cut short. The error
    // listener stays for good, so a late reset is never an unhandled 'error' event.
    request.on('error', cutShort);
    request.once('close', cutShort);
  });
}

function tooLarge(size: string, maxBytes: number): RequestRejectedError {
  return new RequestRejectedError(413, `the request body is ${size}, over this server's limit of ${maxBytes} bytes`);
}

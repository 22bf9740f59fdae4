import assert from 'node:assert/strict';
import { EventEmitter, getEventListeners, once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { z } from 'zod';
import { hasKind } from '../../src/core/errors/has-kind.js';
import { isRetryable } from '../../src/core/errors/is-retryable.js';
import { JsonClient } from '../../src/http-client/json-client.js';
import { within } from '../support/within.js';

/**
 * What the server did, as it did it: `/hang` and `/hang-in-body` when they hold a request, `/endless`
 * (with its response) when it starts sending, `/endless closed` when its client hung up.
 */
const served = new EventEmitter();

/** Routes of a loopback server, each a way of answering (or not). */
const routes: Record<string, (request: IncomingMessage, response: ServerResponse) => void> = {
  '/echo': (request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      response.setHeader('Set-Cookie', ['a=1', 'b=2']);
      response.setHeader('X-Mixed-Case', 'yes');
      response.end(JSON.stringify({ method: request.method, type: request.headers['content-type'], session: request.headers['x-session-id'], body }));
    });
  },
  // "é" split across two writes, after a byte-order mark (undici's text() drops it).
  '/chunks': (_request, response) => {
    const bytes = Buffer.from('\uFEFF{"text":"café"}');
    const cut = bytes.indexOf(0xa9);
    response.write(bytes.subarray(0, cut));
    setTimeout(() => response.end(bytes.subarray(cut)), 10);
  },
  '/empty': (_request, response) => response.writeHead(204).end(),
  // Behind a proxy: a path prefix, a query it wants on every request, and Basic auth.
  '/proxy/v1/models?api-version=2024': (request, response) => response.end(JSON.stringify({ authorization: request.headers.authorization })),
  '/proxy/v1/broken?api-version=2024&sig=SECRET': (_request, response) => response.writeHead(502).end('no upstream'),
  '/proxy/v1/models?limit=5&api-version=2024': (request, response) => response.end(JSON.stringify({ authorization: request.url })),
  '/busy': (_request, response) =>
    response.writeHead(429, { 'retry-after': '2', 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'slow down' } })),
  '/wrong-shape': (_request, response) => response.end(JSON.stringify({ count: 'three' })),
  '/not-json': (_request, response) => response.end('{"count": 3'),
  '/hang': () => void served.emit('/hang'),
  // A server that never stops sending: 64 KiB at a time until the client hangs up.
  '/endless': (_request, response) => {
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const send = () => {
      while (!response.destroyed && response.write(chunk));
      if (!response.destroyed) response.once('drain', send);
    };
    response.once('close', () => served.emit('/endless closed'));
    served.emit('/endless', response);
    send();
  },
  '/count-padded': (_request, response) => response.end(`{"count":3}${' '.repeat(1024 * 1024 - 11)}`),
  '/hang-in-body': (_request, response) => {
    response.writeHead(200, { 'content-length': '100' });
    response.write('{"count":', () => served.emit('/hang-in-body'));
  },
  '/cut-short': (_request, response) => {
    response.writeHead(200, { 'content-length': '100' });
    response.write('{"count":');
    setTimeout(() => response.socket?.destroy(), 10);
  },
};

const server = createServer((request, response) => routes[request.url!]!(request, response));
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const client = new JsonClient();
after(async () => {
  // Connections first: a request a broken spec left hanging would hold the client's close.
  server.closeAllConnections();
  server.close();
  await client.close();
});

const Count = z.object({ count: z.number() });
const post = (path: string, options: { signal?: AbortSignal; timeoutMs?: number; body?: unknown } = {}) =>
  client.request({
    method: 'POST',
    baseUrl,
    path,
    body: options.body ?? {},
    schema: Count,
    timeoutMs: options.timeoutMs ?? 5_000,
    ...(options.signal ? { signal: options.signal } : {}),
  });

/** The caller's signal is let go of and no deadline timer is left once a request ends, however it ended. */
function assertNothingHeld(signal: AbortSignal, timersBefore: number): void {
  assert.equal(getEventListeners(signal, 'abort').length, 0, 'no listener left on the caller signal');
  assert.equal(timers(), timersBefore, 'no timer left');
}
const timers = () => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;

describe('JsonClient', () => {
  it('gives an answer as it came: status, lower-case headers (repeated ones as a list) and the body text', async () => {
    const reply = await client.exchange({ method: 'POST', baseUrl, path: '/echo', body: { a: [1, 'é'] }, headers: { 'x-session-id': 's1' }, timeoutMs: 5_000 });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.headers['set-cookie'], ['a=1', 'b=2']);
    assert.equal(reply.headers['x-mixed-case'], 'yes');
    assert.deepEqual(JSON.parse(reply.text), { method: 'POST', type: 'application/json', session: 's1', body: '{"a":[1,"é"]}' });
    const get = await client.exchange({ method: 'GET', baseUrl, path: '/echo', timeoutMs: 5_000 });
    assert.deepEqual(JSON.parse(get.text), { method: 'GET', type: 'application/json', body: '' });
  });

  it('decodes a body that comes in pieces once, a character split between them included, without a byte-order mark', async () => {
    assert.equal((await client.exchange({ method: 'GET', baseUrl, path: '/chunks', timeoutMs: 5_000 })).text, '{"text":"café"}');
    assert.deepEqual(await client.request({ method: 'GET', baseUrl, path: '/chunks', schema: z.object({ text: z.string() }), timeoutMs: 5_000 }), {
      text: 'café',
    });
    // One answer's own headers: two answers' Date headers differ when a second turns between them.
    const empty = await client.exchange({ method: 'GET', baseUrl, path: '/empty', timeoutMs: 5_000 });
    assert.deepEqual(empty, { status: 204, headers: empty.headers, text: '' });
  });

  it("sends a base URL's user and password as Basic auth, its path before each request's path and its query after", async () => {
    const proxy = `${baseUrl.replace('http://', 'http://user:p%40ss@')}/proxy?api-version=2024`;
    const Reply = z.object({ authorization: z.string().optional() });
    assert.deepEqual(await client.request({ method: 'GET', baseUrl: proxy, path: '/v1/models', schema: Reply, timeoutMs: 5_000 }), {
      authorization: `Basic ${Buffer.from('user:p@ss').toString('base64')}`,
    });
    const bearer = await client.request({
      method: 'GET',
      baseUrl: proxy,
      path: '/v1/models',
      headers: { authorization: 'Bearer k' },
      schema: Reply,
      timeoutMs: 5_000,
    });
    assert.deepEqual(bearer, { authorization: 'Bearer k' }, "the caller's own authorization wins");
    const ownQuery = await client.request({ method: 'GET', baseUrl: proxy, path: '/v1/models?limit=5', schema: Reply, timeoutMs: 5_000 });
    assert.deepEqual(ownQuery, { authorization: '/proxy/v1/models?limit=5&api-version=2024' }, "a path's own query and the base URL's, joined by &");
  });

  it("names the request's URL in its errors, the base URL's credentials masked", async () => {
    const proxy = `${baseUrl.replace('http://', 'http://user:SECRET@')}/proxy?api-version=2024&sig=SECRET`;
    await assert.rejects(client.request({ method: 'GET', baseUrl: proxy, path: '/v1/broken', schema: Count, timeoutMs: 5_000 }), (error) => {
      assert.ok(hasKind(error, 'server'));
      assert.equal(error.message, `${baseUrl.replace('http://', 'http://***@')}/proxy/v1/broken?api-version=2024&sig=***: HTTP 502: no upstream`);
      assert.doesNotMatch(error.url, /SECRET/);
      return true;
    });
  });

  it('throws a status of 400 or more as a ServerError with its message and Retry-After', async () => {
    await assert.rejects(
      post('/busy'),
      (error) => hasKind(error, 'server') && error.status === 429 && error.retryAfterMs === 2_000 && /slow down/.test(error.message),
    );
  });

  it('throws a body that is not its schema as a PolicyError naming the field, and one that is not JSON as a TransportError', async () => {
    await assert.rejects(post('/wrong-shape'), (error) => hasKind(error, 'policy') && /unexpected response: count: /.test(error.message));
    await assert.rejects(post('/not-json'), (error) => hasKind(error, 'transport') && /not complete JSON \(11 bytes\)/.test(error.message));
  });

  it("takes the hand check's reading of an answer, and lets the schema read (and name what is wrong in) any answer it declines", async () => {
    const echo = z.object({ method: z.string() });
    assert.deepEqual(await client.request({ method: 'GET', baseUrl, path: '/echo', schema: echo, read: () => ({ method: 'by hand' }), timeoutMs: 5_000 }), {
      method: 'by hand',
    });
    assert.deepEqual(await client.request({ method: 'GET', baseUrl, path: '/echo', schema: echo, read: () => undefined, timeoutMs: 5_000 }), { method: 'GET' });
    await assert.rejects(
      client.request({ method: 'POST', baseUrl, path: '/wrong-shape', schema: Count, read: () => undefined, timeoutMs: 5_000 }),
      (error) => hasKind(error, 'policy') && /unexpected response: count: /.test(error.message),
    );
  });

  it('gives up at its deadline with a RequestTimeoutError, before the headers or during the body', async () => {
    for (const path of ['/hang', '/hang-in-body']) {
      const signal = new AbortController().signal;
      const before = timers();
      const started = performance.now();
      const timedOut = assert.rejects(
        post(path, { signal, timeoutMs: 100 }),
        (error) => hasKind(error, 'timeout') && error.timeoutMs === 100 && error.message.includes(`${baseUrl}${path}`),
      );
      await within(timedOut, 20_000, `${path} past its deadline`);
      // A timer rounds to the millisecond; past that, no earlier than its deadline.
      assert.ok(performance.now() - started >= 99, 'not before its deadline');
      assertNothingHeld(signal, before);
    }
  });

  it("throws the caller's own reason when its signal aborts: before sending, before the headers, or during the body", async () => {
    const reason = new Error('the run was stopped');
    const early = new AbortController();
    early.abort(reason);
    await assert.rejects(post('/echo', { signal: early.signal }), (error) => error === reason);
    for (const path of ['/hang', '/hang-in-body']) {
      const controller = new AbortController();
      const before = timers();
      const held = once(served, path);
      // A deadline a minute off: the abort, not the deadline, ends the request.
      const pending = post(path, { signal: controller.signal, timeoutMs: 60_000 });
      await held;
      controller.abort(reason);
      await within(
        assert.rejects(pending, (error) => error === reason),
        20_000,
        `${path} once its signal aborted`,
      );
      assertNothingHeld(controller.signal, before);
    }
  });

  it('throws a refused connection or a body cut short as a TransportError with its cause', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    const signal = new AbortController().signal;
    const before = timers();
    await assert.rejects(
      client.request({ method: 'GET', baseUrl: `http://127.0.0.1:${port}`, path: '/x', schema: Count, timeoutMs: 5_000, signal }),
      (error) => hasKind(error, 'transport') && (error.cause as { code?: string }).code === 'ECONNREFUSED',
    );
    await assert.rejects(post('/cut-short', { signal }), (error) => hasKind(error, 'transport') && error.cause instanceof Error);
    assertNothingHeld(signal, before);
  });

  it('lets go of the signal and the deadline after a successful answer, at any concurrency', async () => {
    const signal = new AbortController().signal;
    const before = timers();
    // A deadline no loaded machine comes near: fifty answers at once are slow to come when the CPU is shared.
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) => client.exchange({ method: 'POST', baseUrl, path: '/echo', body: { i }, timeoutMs: 60_000, signal })),
    );
    assert.deepEqual(
      replies.map((reply) => (JSON.parse(JSON.parse(reply.text).body) as { i: number }).i),
      Array.from({ length: 50 }, (_, i) => i),
    );
    assertNothingHeld(signal, before);
  });

  it('refuses an answer past its size limit as a LimitExceededError, not retried, and hangs up on a server that never stops sending', async () => {
    const small = new JsonClient({ maxResponseBytes: 1024 * 1024 });
    let sender: ServerResponse | undefined;
    served.once('/endless', (response: ServerResponse) => (sender = response));
    try {
      const signal = new AbortController().signal;
      const before = timers();
      const closed = once(served, '/endless closed');
      await assert.rejects(small.request({ method: 'GET', baseUrl, path: '/endless', schema: Count, timeoutMs: 30_000, signal }), (error) => {
        assert.ok(
          hasKind(error, 'limit-exceeded') && error.type === 'response-bytes' && error.limit === 1024 * 1024 && error.value > error.limit,
          String(error),
        );
        assert.ok(!isRetryable(error));
        assert.match(error.message, /\/endless: the answer passed 1048576 bytes/);
        return true;
      });
      assertNothingHeld(signal, before);
      await within(closed, 20_000, 'the connection is dropped, not drained');
      assert.deepEqual(
        await small.request({ method: 'GET', baseUrl, path: '/count-padded', schema: Count, timeoutMs: 5_000 }),
        { count: 3 },
        'an answer of exactly the limit is taken',
      );
    } finally {
      // A client that failed to hang up would be sent to forever, and close() waits for it.
      sender?.destroy();
      await small.close();
    }
  });

  it('refuses a connection cap that is not a whole number of at least 1', () => {
    for (const connections of [0, -1, 1.5, Number.NaN]) {
      assert.throws(() => new JsonClient({ connections }), /JsonClientOptions\.connections must be a whole number of at least 1/, String(connections));
    }
  });

  it('gives up at its deadline while it waits for a connection, and the connection then serves the next request', async () => {
    const single = new JsonClient({ connections: 1 });
    // The one connection is held by a request that would wait a minute, until the spec lets it go.
    const holder = new AbortController();
    try {
      let freed = false;
      const held = once(served, '/hang');
      const hung = single
        .exchange({ method: 'GET', baseUrl, path: '/hang', timeoutMs: 60_000, signal: holder.signal })
        .catch(() => undefined)
        .finally(() => {
          freed = true;
        });
      await held;
      const waited = assert.rejects(single.exchange({ method: 'GET', baseUrl, path: '/echo', timeoutMs: 100 }), (error) => hasKind(error, 'timeout'));
      await within(waited, 20_000, 'the request waiting for the connection at its deadline');
      assert.equal(freed, false, 'not held until the connection is free');
      holder.abort(new Error('let go'));
      await hung;
      assert.equal((await single.exchange({ method: 'GET', baseUrl, path: '/echo', timeoutMs: 5_000 })).status, 200);
    } finally {
      // A spec that failed above left the connection held, and close() waits for it.
      holder.abort(new Error('let go'));
      await single.close();
    }
  });
});

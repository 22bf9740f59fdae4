import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hasKind } from '../../src/core/errors/has-kind.js';
import { JsonServer } from '../../src/servers/http-server/json-server.js';

describe('JsonServer: the core every NeMo Gym-shaped server stands on', () => {
  let server: JsonServer;
  before(async () => {
    server = new JsonServer({
      apiKey: 'secret',
      maxBodyBytes: 1024,
      routes: {
        'POST /echo': ({ body, cookies }) => ({ status: 200, body: { body, cookies }, headers: { 'set-cookie': 'session=abc; Path=/; HttpOnly' } }),
        'POST /boom': () => {
          throw new Error('the handler broke');
        },
      },
      fallback: (method, path) =>
        method === 'POST' && path.startsWith('/tool_') ? ({ body }) => ({ status: 200, body: { tool: path.slice(1), body } }) : undefined,
    });
    await server.start();
  });
  after(() => server.close());

  const post = (path: string, body: string, headers: Record<string, string> = { authorization: 'Bearer secret' }) =>
    fetch(`${server.url}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

  it('binds to loopback by default', () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('refuses to start where it cannot listen with a ListenError naming the address and why', async () => {
    const port = Number(new URL(server.url).port);
    await assert.rejects(new JsonServer({ routes: {}, port }).start(), (error) => {
      assert.ok(hasKind(error, 'listen'), String(error));
      assert.deepEqual([error.host, error.port, error.code], ['127.0.0.1', port, 'EADDRINUSE']);
      assert.equal(error.message, `cannot listen on 127.0.0.1:${port}: the port is in use (EADDRINUSE)`);
      return true;
    });
    // 192.0.2.0/24 is reserved for documentation: no machine has it.
    await assert.rejects(
      new JsonServer({ routes: {}, host: '192.0.2.1', port: 0 }).start(),
      (error) => hasKind(error, 'listen') && error.message === 'cannot listen on 192.0.2.1:0: this machine has no such address (EADDRNOTAVAIL)',
    );
  });

  it('refuses a request without the bearer token with 401', async () => {
    assert.equal((await post('/echo', '{}', {})).status, 401);
    assert.equal((await post('/echo', '{}', { authorization: 'Bearer wrong!' })).status, 401);
  });

  it('answers routes with their JSON, passing cookies both ways', async () => {
    const response = await post('/echo', '{"a": 1}', { authorization: 'Bearer secret', cookie: 'session=xyz; other=1' });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('set-cookie') ?? '', /^session=abc/);
    assert.deepEqual(await response.json(), { body: { a: 1 }, cookies: { session: 'xyz', other: '1' } });
  });

  it('routes what the table lacks through the fallback, and 404s the rest', async () => {
    assert.deepEqual(await (await post('/tool_add', '{"x": 2}')).json(), { tool: 'tool_add', body: { x: 2 } });
    assert.equal((await post('/nothing', '{}')).status, 404);
  });

  it('refuses malformed JSON (400) and bodies over the limit (413), and a handler error is a 500 with its message only; the next request is served', async () => {
    assert.equal((await post('/echo', '{"a":')).status, 400);
    assert.equal((await post('/echo', JSON.stringify({ big: 'x'.repeat(4096) }))).status, 413);
    const broken = await post('/boom', '{}');
    assert.equal(broken.status, 500);
    const text = await broken.text();
    assert.match(text, /the handler broke/);
    assert.doesNotMatch(text, /\n\s+at /);
    assert.equal((await post('/echo', '{"ok": true}')).status, 200);
  });

  it('accepts a body of exactly the limit and refuses one byte more, whether it declares its length or comes chunked', async () => {
    // A JSON string of `bytes` bytes in all.
    const body = (bytes: number) => JSON.stringify('x'.repeat(bytes - 2));
    const chunked = (text: string) =>
      fetch(`${server.url}/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer secret' },
        body: new ReadableStream({
          start: (controller) => {
            controller.enqueue(new TextEncoder().encode(text));
            controller.close();
          },
        }),
        duplex: 'half',
      });
    const declared = await post('/echo', body(1024));
    assert.equal(declared.status, 200);
    assert.equal(((await declared.json()) as { body: string }).body.length, 1022);
    const streamed = await chunked(body(1024));
    assert.equal(streamed.status, 200);
    assert.equal(((await streamed.json()) as { body: string }).body.length, 1022);
    assert.equal((await post('/echo', body(1025))).status, 413);
    assert.equal((await chunked(body(1025))).status, 413);
  });
});

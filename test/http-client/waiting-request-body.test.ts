import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { hasKind } from '../../src/core/errors/has-kind.js';
import { JsonClient } from '../../src/http-client/json-client.js';

/** A body that counts how often it is serialized. */
function countedBody(name: string, counts: Map<string, number>) {
  return {
    toJSON: () => {
      counts.set(name, (counts.get(name) ?? 0) + 1);
      return { name };
    },
  };
}

describe('a request waiting in the client for a connection (JsonClient, one connection)', () => {
  const held: ServerResponse[] = [];
  let baseUrl: string;
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      if (request.url === '/hold') held.push(response);
      else response.end(JSON.stringify({ body }));
    });
  });
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());
  const reply = z.object({ body: z.string() });

  it('is serialized only once it reaches the connection, and sent as it was then', async () => {
    const client = new JsonClient({ connections: 1 });
    const counts = new Map<string, number>();
    const first = client.request({ method: 'POST', baseUrl, path: '/hold', body: countedBody('first', counts), schema: reply, timeoutMs: 5_000 });
    while (held.length === 0) await sleep(5);
    const second = client.request({ method: 'POST', baseUrl, path: '/echo', body: countedBody('second', counts), schema: reply, timeoutMs: 5_000 });
    await sleep(50);
    assert.deepEqual(Object.fromEntries(counts), { first: 1 }, 'the waiting request holds its value, not its JSON');
    held.shift()!.end(JSON.stringify({ body: 'held' }));
    assert.deepEqual(await first, { body: 'held' });
    assert.deepEqual(await second, { body: '{"name":"second"}' });
    assert.deepEqual(Object.fromEntries(counts), { first: 1, second: 1 });
    await client.close();
  });

  it('fails as a transport failure when its body is not JSON, and the connection goes on serving', async () => {
    const client = new JsonClient({ connections: 1 });
    const post = (body: unknown) => client.request({ method: 'POST', baseUrl, path: '/echo', body, schema: reply, timeoutMs: 5_000 });
    await assert.rejects(post({ n: 1n }), (error) => hasKind(error, 'transport') && /BigInt/.test(error.message));
    const first = client.request({ method: 'POST', baseUrl, path: '/hold', body: {}, schema: reply, timeoutMs: 5_000 });
    while (held.length === 0) await sleep(5);
    const waiting = post({ n: 2n });
    await sleep(20);
    held.shift()!.end(JSON.stringify({ body: 'held' }));
    await first;
    await assert.rejects(waiting, (error) => hasKind(error, 'transport') && /BigInt/.test(error.message));
    assert.deepEqual(await post({ n: 3 }), { body: '{"n":3}' });
    await client.close();
  });
});

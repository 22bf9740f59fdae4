import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { JsonClient } from '../../src/http-client/json-client.js';
import { plainConnector } from '../../src/http-client/plain-connector.js';

const timers = () => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;

function connectTo(port: number): Promise<{ error: Error | null; socket: Socket | null }> {
  return new Promise((resolve) =>
    plainConnector({ hostname: '127.0.0.1', protocol: 'http:', port: String(port) }, (error, socket) => resolve({ error, socket })),
  );
}

describe("plain-HTTP connections (plainConnector, JsonClient's pools)", () => {
  let server: Server;
  let port: number;
  before(async () => {
    server = createServer((request, response) => response.end(JSON.stringify({ path: request.url })));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => server.close());

  it('once connected keep nothing of the connect: one shared error listener, no timer', async () => {
    const timersBefore = timers();
    const [first, second] = await Promise.all([connectTo(port), connectTo(port)]);
    assert.equal(first.error, null);
    const sockets = [first.socket!, second.socket!];
    assert.deepEqual(
      sockets.map((socket) => socket.listeners('error').length),
      [1, 1],
    );
    assert.equal(sockets[0]!.listeners('error')[0], sockets[1]!.listeners('error')[0], 'the listener is shared, no closure per connection');
    assert.equal(timers(), timersBefore, 'the connect timeout is cleared');
    for (const socket of sockets) socket.destroy();
  });

  it('give the error of a connection refused, and leave no timer', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const timersBefore = timers();
    const { error, socket } = await connectTo(closedPort);
    assert.equal((error as NodeJS.ErrnoException | null)?.code, 'ECONNREFUSED');
    assert.equal(socket, null);
    assert.equal(timers(), timersBefore);
  });

  it("carry a JsonClient's requests, over kept-alive connections", async () => {
    const client = new JsonClient();
    const reply = z.object({ path: z.string() });
    const answers = await Promise.all(
      ['/a', '/b', '/c'].map((path) => client.request({ method: 'GET', baseUrl: `http://127.0.0.1:${port}`, path, schema: reply, timeoutMs: 5_000 })),
    );
    assert.deepEqual(answers, [{ path: '/a' }, { path: '/b' }, { path: '/c' }]);
    assert.deepEqual(await client.request({ method: 'GET', baseUrl: `http://127.0.0.1:${port}`, path: '/again', schema: reply, timeoutMs: 5_000 }), {
      path: '/again',
    });
    await client.close();
  });
});

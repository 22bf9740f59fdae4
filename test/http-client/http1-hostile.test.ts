import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { hasKind } from '../../src/core/errors/has-kind.js';
import { jsonAnswer as json, rawHttpFixture } from '../support/raw-http-server.js';

const fixture = rawHttpFixture();
after(() => fixture.closeAll());
const setUp = fixture.setUp;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How `promise` settled, asserting it did within `ms` (it did not wait for a deadline, or hang). */
async function settlesWithin<T>(promise: Promise<T>, ms: number): Promise<PromiseSettledResult<T>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms);
  });
  try {
    const [result] = await Promise.race([Promise.allSettled([promise]), late]);
    return result!;
  } finally {
    clearTimeout(timer);
  }
}

describe('JsonClient on plain HTTP against a hostile server (Http1Pool)', () => {
  it('resolves every close() call, a second one made while a request is still in flight too', async () => {
    const { client, post } = await setUp((request) => setTimeout(() => request.socket.write(json('{"done":1}')), 100));
    const inFlight = post('/slow');
    await sleep(20);
    const closed = await settlesWithin(Promise.all([client.close(), client.close()]), 2_000);
    assert.equal(closed.status, 'fulfilled');
    assert.equal((await inFlight).text, '{"done":1}');
  });

  it('fails a request with a TransportError, not at its deadline, when the server ends or resets the connection anywhere in its answer', async () => {
    const cuts = [
      'HTTP/1.1 200 OK\r\n',
      'HTTP/1.1 200 OK\r\nContent-Le',
      'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{"a',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\na\r\n{"a',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n',
    ];
    const { post } = await setUp((request) => {
      const [, how, at] = /\/(end|reset)\/(\d)/.exec(request.line)!;
      request.socket.write(cuts[Number(at)]!, () => setTimeout(() => (how === 'end' ? request.socket.end() : request.socket.resetAndDestroy()), 10));
    });
    for (const how of ['end', 'reset']) {
      for (let at = 0; at < cuts.length; at++) {
        const result = await settlesWithin(post(`/${how}/${at}`), 2_000);
        assert.ok(result.status === 'rejected' && hasKind(result.reason, 'transport'), `${how} after ${JSON.stringify(cuts[at])}`);
      }
    }
  });

  it('takes an early 413 to a 20 MB request body the server stops reading, whether it then closes or resets', async () => {
    const { post } = await setUp(() => undefined, {
      onHead: (head, socket) => {
        const answer = 'HTTP/1.1 413 Payload Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n';
        if (head.includes('/close')) socket.end(answer);
        else socket.write(answer, () => socket.resetAndDestroy());
        return true;
      },
    });
    const body = { text: 'x'.repeat(20 * 1024 * 1024) };
    for (const path of ['/close', '/reset']) {
      const result = await settlesWithin(post(path, { body }), 5_000);
      assert.ok(result.status === 'rejected' ? hasKind(result.reason, 'transport') : result.value.status === 413, path);
    }
  });

  it('gives up a 100 MB answer as soon as it passes maxResponseBytes, as a LimitExceededError', async () => {
    const { post } = await setUp(
      (request) => {
        request.socket.write('HTTP/1.1 200 OK\r\nContent-Length: 104857600\r\n\r\n');
        const chunk = Buffer.alloc(1024 * 1024, 0x61);
        let sent = 0;
        const more = () => {
          while (sent < 100 && !request.socket.destroyed) {
            sent += 1;
            if (!request.socket.write(chunk)) return void request.socket.once('drain', more);
          }
        };
        more();
      },
      { maxResponseBytes: 1024 * 1024 },
    );
    const result = await settlesWithin(post('/big'), 3_000);
    assert.ok(result.status === 'rejected' && hasKind(result.reason, 'limit-exceeded'), String((result as PromiseRejectedResult).reason));
  });

  it('times out at the request deadline a head that never ends, sent a line every 50 ms', async () => {
    const { post } = await setUp((request) => {
      request.socket.write('HTTP/1.1 200 OK\r\n');
      const timer = setInterval(() => request.socket.write('X-A: b\r\n'), 50);
      request.socket.on('close', () => clearInterval(timer));
    });
    const result = await settlesWithin(post('/x', { timeoutMs: 500 }), 1_500);
    assert.ok(result.status === 'rejected' && hasKind(result.reason, 'timeout'), String((result as PromiseRejectedResult).reason));
  });

  it('refuses at once chunk sizes, lengths and heads it cannot read for certain, and serves the next request on a new connection', async () => {
    const answers = [
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n{}',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-2\r\n{}\r\n0\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\n{}',
      'http/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}',
      // Lines ended by LF alone: refused at once, not waited for until the deadline.
      'HTTP/1.1 200 OK\nContent-Length: 2\n\n{}',
    ];
    const { post, server } = await setUp((request) => {
      const at = /\/bad\/(\d)/.exec(request.line)?.[1];
      request.socket.write(at === undefined ? json('{"next":1}') : answers[Number(at)]!);
    });
    for (let at = 0; at < answers.length; at++) {
      const result = await settlesWithin(post(`/bad/${at}`), 2_000);
      assert.ok(result.status === 'rejected' && hasKind(result.reason, 'transport'), answers[at]);
      assert.equal((await post('/next')).text, '{"next":1}');
    }
    assert.equal(server.connections(), answers.length + 1);
  });

  it('never hands the stray body of a 204 to the request that waits for the connection', async () => {
    let requests = 0;
    const { post } = await setUp(
      (request) => {
        requests += 1;
        if (requests > 1) request.socket.write(json(`{"n":${requests}}`));
        else {
          // The body a 204 cannot have, sent as a whole answer would be: it must not pass for the next request's.
          request.socket.write(`HTTP/1.1 204 No Content\r\n\r\n${json('{"stray":1}')}`);
        }
      },
      { connections: 1 },
    );
    const [first, second, third] = await Promise.all([post('/a'), post('/b'), post('/c')]);
    assert.equal(first.status, 204);
    assert.deepEqual([second.text, third.text], ['{"n":2}', '{"n":3}']);
  });

  it('leaves no socket or timer behind once closed, with requests over the cap aborted while they wait', async () => {
    const before = process.getActiveResourcesInfo().sort();
    const { post, client, server } = await setUp((request) => setTimeout(() => request.socket.write(json(request.body)), 30), { connections: 2 });
    const controllers = Array.from({ length: 20 }, () => new AbortController());
    const replies = controllers.map((controller, i) => post(`/r${i}`, { signal: controller.signal }));
    setTimeout(() => {
      for (let i = 0; i < 20; i += 3) controllers[i]!.abort(new Error('gave up'));
    }, 10);
    const results = await Promise.allSettled(replies);
    results.forEach((result, i) => {
      if (i % 3 === 0) assert.equal(result.status, 'rejected');
      else assert.equal(result.status === 'fulfilled' && JSON.parse(result.value.text).path, `/r${i}`, `reply ${i}`);
    });
    await client.close();
    await server.close();
    await sleep(20);
    assert.deepEqual(process.getActiveResourcesInfo().sort(), before);
  });

  it('fails, or answers, a request written on an idle connection just as the server closes it, without waiting for its deadline', async () => {
    const { post } = await setUp((request) => {
      request.socket.write(json('{}'));
      if (request.line.includes('/first')) setTimeout(() => request.socket.end(), 50);
    });
    await post('/first');
    await sleep(49);
    const result = await settlesWithin(post('/second', { timeoutMs: 5_000 }), 2_000);
    assert.ok(result.status === 'fulfilled' || hasKind(result.reason, 'transport'));
  });

  it('reaches a server on IPv6 loopback, with the bracketed address as its Host', async () => {
    const { post, server } = await setUp((request) => request.socket.write(json(JSON.stringify(request.head))), { host: '::1' });
    const head = JSON.parse((await post('/x')).text) as string;
    assert.match(head, new RegExp(`\\r\\nhost: \\[::1\\]:${new URL(server.baseUrl).port}\\r\\n`));
  });

  it("refuses a caller's Content-Length or Transfer-Encoding header before anything is sent: the server would read another body than the one sent", async () => {
    let requests = 0;
    const { post } = await setUp((request) => {
      requests += 1;
      request.socket.write(json('{}'));
    });
    for (const headers of [{ 'Content-Length': '2' }, { 'transfer-encoding': 'chunked' }] as Record<string, string>[]) {
      const result = await settlesWithin(post('/x', { headers, timeoutMs: 1_000 }), 900);
      assert.ok(
        result.status === 'rejected' && hasKind(result.reason, 'transport') && /is set by the client/.test(String(result.reason)),
        JSON.stringify(headers),
      );
    }
    assert.equal(requests, 0);
    assert.equal((await post('/x')).status, 200);
  });

  it("sends a caller's Host header in place of the origin's, never both (a server behind nginx answers two with a 400)", async () => {
    const { post } = await setUp((request) => request.socket.write(json(JSON.stringify(request.head))));
    const head = JSON.parse((await post('/x', { headers: { Host: 'api.example.com' } })).text) as string;
    assert.deepEqual(head.match(/\r\nhost: [^\r]*/gi), ['\r\nHost: api.example.com']);
  });
});

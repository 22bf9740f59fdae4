import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpProtocolError, type ResponseHeaders, ResponseParser } from '../../src/http-client/http1-response-parser.js';

interface Read {
  status?: number;
  headers?: ResponseHeaders;
  body: string;
  reusable?: boolean;
  heads: number;
}

/** Feeds `bytes` in pieces cut at `cuts`, then (with `close`) the server's close; what the parser read. */
function parse(bytes: string, cuts: readonly number[] = [], options: { close?: boolean; noBody?: boolean } = {}): Read {
  const read: Read = { body: '', heads: 0 };
  const chunks: Buffer[] = [];
  const parser = new ResponseParser(
    {
      head: (status, headers) => {
        read.heads += 1;
        read.status = status;
        read.headers = headers;
      },
      body: (chunk) => chunks.push(Buffer.from(chunk)),
      complete: (reusable) => {
        assert.equal(read.reusable, undefined, 'the end is told once');
        read.reusable = reusable;
      },
    },
    16 * 1024,
  );
  parser.expect(options.noBody ?? false);
  const buffer = Buffer.from(bytes, 'latin1');
  let from = 0;
  for (const cut of [...cuts, buffer.length]) {
    parser.push(buffer.subarray(from, cut));
    from = cut;
  }
  if (options.close) parser.finish();
  read.body = Buffer.concat(chunks).toString('latin1');
  return read;
}

/** The same answer read whole and cut at every byte boundary (and at every pair of them): framing must not depend on how TCP splits it. */
function parseEverySplit(bytes: string, options: { close?: boolean; noBody?: boolean } = {}): Read {
  const whole = parse(bytes, [], options);
  for (let cut = 1; cut < bytes.length; cut++) {
    assert.deepEqual(parse(bytes, [cut], options), whole, `cut at byte ${cut}`);
    assert.deepEqual(parse(bytes, [cut, Math.min(bytes.length, cut + 3)], options), whole, `cut at bytes ${cut} and ${cut + 3}`);
  }
  return whole;
}

const rejects = (bytes: string, pattern: RegExp, options: { close?: boolean } = {}) =>
  assert.throws(
    () => parse(bytes, [], options),
    (error) => error instanceof HttpProtocolError && pattern.test(error.message),
  );

describe('ResponseParser', () => {
  it('reads a body framed by Content-Length, the head and body cut anywhere, and keeps the connection', () => {
    const read = parseEverySplit('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{"count":3}');
    assert.equal(read.status, 200);
    assert.equal(read.headers?.['content-type'], 'application/json');
    assert.equal(read.body, '{"count":3}');
    assert.equal(read.reusable, true);
  });

  it('reads a chunked body with chunk extensions and trailers, cut anywhere', () => {
    const read = parseEverySplit(
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;name=x\r\n{"co\r\nB\r\nunt":3,"a":\r\n2\r\n1}\r\n0\r\nX-Trailer: yes\r\n\r\n',
    );
    assert.equal(read.body, '{"count":3,"a":1}');
    assert.equal(read.reusable, true);
  });

  it('skips 1xx answers, and reads no body for 204, 304 and an answer to HEAD', () => {
    const continued = parseEverySplit(
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok',
    );
    assert.deepEqual([continued.heads, continued.status, continued.body, continued.reusable], [1, 200, 'ok', true]);
    for (const status of [204, 304]) {
      assert.deepEqual(parse(`HTTP/1.1 ${status} No\r\nContent-Length: 10\r\n\r\n`), {
        heads: 1,
        status,
        headers: parse(`HTTP/1.1 ${status} No\r\nContent-Length: 10\r\n\r\n`).headers,
        body: '',
        reusable: true,
      });
    }
    assert.equal(parse('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n', [], { noBody: true }).reusable, true);
  });

  it('reads a body without a length until the server closes, and then drops the connection', () => {
    const read = parseEverySplit('HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nall of it', { close: true });
    assert.deepEqual([read.body, read.reusable], ['all of it', false]);
    const unknownCoding = parse('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nraw', [], { close: true });
    assert.deepEqual([unknownCoding.body, unknownCoding.reusable], ['raw', false]);
  });

  it('keeps the connection only when the version and Connection header allow it', () => {
    assert.equal(parse('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n').reusable, false);
    assert.equal(parse('HTTP/1.1 200 OK\r\nConnection: Upgrade, Close\r\nContent-Length: 0\r\n\r\n').reusable, false);
    assert.equal(parse('HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n').reusable, false);
    assert.equal(parse('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n').reusable, true);
  });

  it('gives headers lower-case, a repeated one as a list, a header named like a prototype key as a header', () => {
    const read = parse('HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nX-Mixed-Case:  yes \r\nset-cookie: b=2\r\n__proto__: p\r\nContent-Length: 0\r\n\r\n');
    assert.deepEqual(read.headers?.['set-cookie'], ['a=1', 'b=2']);
    assert.equal(read.headers?.['x-mixed-case'], 'yes');
    assert.deepEqual(
      Object.entries(read.headers ?? {}).find(([name]) => name.startsWith('__')),
      ['__proto__', 'p'],
    );
  });

  it('delivers an answer followed by bytes nobody asked for, and drops the connection', () => {
    const read = parse('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n\r\n');
    assert.deepEqual([read.body, read.reusable], ['ok', false]);
    assert.equal(parse('HTTP/1.1 204 No Content\r\n\r\nextra').reusable, false);
  });

  it('frames a body with both a transfer coding and a length by the coding, and drops the connection', () => {
    const read = parse('HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n');
    assert.deepEqual([read.body, read.reusable], ['ok', false]);
  });

  it('refuses what it cannot frame for certain, naming what is wrong', () => {
    rejects('SMTP ready\r\n\r\n', /does not start with an HTTP\/1\.x status line: "SMTP ready"/);
    rejects('HTTP/2 200\r\n\r\n', /status line/);
    rejects('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello', /Content-Length is not one number/);
    rejects('HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n', /Content-Length is not one number/);
    rejects('HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n', /Content-Length is not one number/);
    rejects('HTTP/1.1 200 OK\r\nno colon here\r\n\r\n', /no valid name: "no colon here"/);
    rejects('HTTP/1.1 200 OK\r\nX-A: 1\r\n folded\r\n\r\n', /no valid name/);
    rejects('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', /chunk's size is not a hexadecimal number/);
    rejects('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokXX', /does not end with CRLF/);
    rejects('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n', /switched protocols/);
    rejects(`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(17 * 1024)}`, /headers passed 16384 bytes/);
    assert.equal(parse('HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\nhello').body, 'hello', 'a length repeated alike is one length');
  });

  it('tells a close before any answer from one in the middle of an answer', () => {
    rejects('', /^other side closed$/, { close: true });
    rejects('HTTP/1.1 200 OK\r\nContent-Le', /closed the connection before its answer was complete/, { close: true });
    rejects('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort', /closed the connection before its answer was complete/, { close: true });
    rejects('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab', /before its answer was complete/, { close: true });
  });
});

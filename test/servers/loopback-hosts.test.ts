import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, it } from 'node:test';
import { EmbeddedPolicy } from '../../src/policy/embedded/embedded-policy.js';
import { embeddedModelServer } from '../../src/servers/openai-compatible/embedded-model-server.js';
import { isLoopbackHost, loopbackNames } from '../../src/servers/http-server/loopback-hosts.js';
import { JsonServer } from '../../src/servers/http-server/json-server.js';

describe('the Host names a loopback server answers', () => {
  it("are loopback's own names and the address it is bound to", () => {
    assert.deepEqual(loopbackNames('127.0.0.1'), ['127.0.0.1', 'localhost', '[::1]']);
    assert.deepEqual(loopbackNames('127.0.0.2'), ['127.0.0.1', 'localhost', '[::1]', '127.0.0.2']);
    assert.deepEqual(loopbackNames('::1'), ['127.0.0.1', 'localhost', '[::1]']);
    assert.deepEqual(loopbackNames('LocalHost'), ['127.0.0.1', 'localhost', '[::1]']);
  });

  it('are any once the server is bound beyond loopback', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.5', 'viewer.lab.example']) assert.equal(loopbackNames(host), undefined, host);
  });

  it('match case-insensitively, at any port (a tunnel sends its own), and never a longer name', () => {
    const names = loopbackNames('127.0.0.1')!;
    for (const host of ['LOCALHOST:8080', 'localhost', '127.0.0.1:9000', '[::1]:1', '[::1]']) assert.equal(isLoopbackHost(host, names), true, host);
    for (const host of [undefined, 'localhost.evil.example:8080', '127.0.0.1.evil.example', 'evil.example:8080', '[::1].evil'])
      assert.equal(isLoopbackHost(host, names), false, String(host));
  });
});

/** POST with exactly this Host header (fetch sets its own). */
function post(url: string, path: string, host: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: hostname, port, path, method: 'POST', headers: { host, 'content-type': 'application/json' } }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode!, body }));
    });
    outgoing.on('error', reject).end('{"model":"gymnast-tiny-arith","prompt":"1+1=","max_tokens":2}');
  });
}

describe('every gymnast server on loopback refuses a name of another site (DNS rebinding)', () => {
  const servers = {
    'a NeMo Gym server': async () => new JsonServer({ routes: { 'POST /verify': () => ({ status: 200, body: { reward: 1 } }) } }),
    'the model server': async () => embeddedModelServer(await EmbeddedPolicy.load(), {}),
  };
  for (const [name, make] of Object.entries(servers)) {
    it(`${name}: 421 for evil.example, saying why and what to do; loopback names at any port are served`, async () => {
      const server = await make();
      const url = await server.start();
      try {
        const path = name === 'the model server' ? '/v1/completions' : '/verify';
        const refused = await post(url, path, `evil.example:${new URL(url).port}`);
        assert.equal(refused.status, 421);
        assert.match(refused.body, /DNS rebinding.*--host/);
        for (const host of [new URL(url).host, 'localhost:1']) assert.equal((await post(url, path, host)).status, 200, host);
      } finally {
        await server.close();
      }
    });
  }
});

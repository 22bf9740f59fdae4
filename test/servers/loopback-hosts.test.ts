import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isLoopbackHost, loopbackHosts } from '../../src/servers/http/loopback-hosts.js';

describe('the Host names a loopback server answers', () => {
  it("are loopback's own names at the server's port, and the address it is bound to", () => {
    assert.deepEqual(loopbackHosts('127.0.0.1', 8080), ['127.0.0.1:8080', 'localhost:8080', '[::1]:8080']);
    assert.deepEqual(loopbackHosts('127.0.0.2', 8080), ['127.0.0.1:8080', 'localhost:8080', '[::1]:8080', '127.0.0.2:8080']);
    assert.deepEqual(loopbackHosts('::1', 8080), ['127.0.0.1:8080', 'localhost:8080', '[::1]:8080']);
    assert.deepEqual(loopbackHosts('LocalHost', 8080), ['127.0.0.1:8080', 'localhost:8080', '[::1]:8080']);
  });

  it('are any once the server is bound beyond loopback', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.5', 'viewer.lab.example']) assert.equal(loopbackHosts(host, 8080), undefined, host);
  });

  it('match case-insensitively, and without a port only at port 80 (as browsers send it)', () => {
    const at8080 = loopbackHosts('127.0.0.1', 8080)!;
    assert.equal(isLoopbackHost('LOCALHOST:8080', at8080), true);
    assert.equal(isLoopbackHost('localhost', at8080), false);
    assert.equal(isLoopbackHost(undefined, at8080), false);
    assert.equal(isLoopbackHost('localhost.evil.example:8080', at8080), false);
    const at80 = loopbackHosts('127.0.0.1', 80)!;
    for (const host of ['localhost', '127.0.0.1', '[::1]', 'localhost:80']) assert.equal(isLoopbackHost(host, at80), true, host);
  });
});

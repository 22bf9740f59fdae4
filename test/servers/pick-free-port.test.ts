import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { ephemeralPortLow, pickFreePort } from '../../src/servers/config/pick-free-port.js';

const linuxRange = (() => {
  try {
    return readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8');
  } catch {
    return undefined;
  }
})();

describe('a port picked free for a server that listens later', () => {
  it("is read from the kernel's ephemeral range where Linux tells it", { skip: linuxRange === undefined && 'not Linux' }, () => {
    assert.equal(ephemeralPortLow(), Number(linuxRange!.trim().split(/\s+/)[0]));
  });

  it('lies below the ephemeral range, where outgoing connections never bind, and can be listened on', async () => {
    const low = ephemeralPortLow();
    for (let pick = 0; pick < 20; pick++) {
      const port = await pickFreePort('127.0.0.1');
      assert.ok(port >= 1024 && port < low, `${port} is below ${low}`);
      const server = createServer().listen(port, '127.0.0.1');
      await once(server, 'listening');
      server.close();
    }
  });
});

import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gymnast } from '../support/run-cli.js';

const run = fileURLToPath(new URL('../fixtures/rows/v2_rollouts.jsonl', import.meta.url));

describe('a server whose port is taken says where and how to choose another, without a stack', { concurrency: 3 }, () => {
  let taken: Server;
  let port: number;
  before(async () => {
    taken = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => taken.once('listening', resolve));
    port = (taken.address() as { port: number }).port;
  });
  after(() => taken.close());

  for (const command of [
    ['serve', 'model', '--embedded'],
    ['serve', 'resources', 'arithmetic'],
    ['serve', 'agent', '--env', 'arithmetic'],
    ['view', run, '--no-open'],
  ]) {
    it(`gymnast ${command.join(' ')} --port N`, async () => {
      const { code, stderr } = await gymnast(...command, '--port', String(port));
      assert.equal(code, 1);
      assert.equal(
        stderr,
        `gymnast: listen: cannot listen on 127.0.0.1:${port}: the port is in use (EADDRINUSE); choose another with --port, or --port 0 for a free one\n`,
      );
    });
  }

  it('gymnast serve --config X.yaml, for the head server and for a server whose port the config sets', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gymnast-port-in-use-'));
    const head = join(dir, 'head.yaml');
    writeFileSync(head, `head_server: {port: ${port}}\narithmetic:\n  resources_servers:\n    arithmetic: {}\n`);
    const server = join(dir, 'server.yaml');
    writeFileSync(server, `head_server: {port: 0}\narithmetic:\n  resources_servers:\n    arithmetic: {port: ${port}}\n`);
    const [fromHead, fromServer] = await Promise.all([gymnast('serve', '--config', head), gymnast('serve', '--config', server)]);
    assert.equal(fromHead.code, 1);
    assert.equal(
      fromHead.stderr,
      `gymnast: server-start: server "head_server": listen: cannot listen on 127.0.0.1:${port}: the port is in use (EADDRINUSE); set head_server.port in ${head} to another port, or to 0 for a free one\n`,
    );
    assert.equal(fromServer.code, 1);
    assert.equal(
      fromServer.stderr,
      `gymnast: server-start: server "arithmetic": listen: cannot listen on 127.0.0.1:${port}: the port is in use (EADDRINUSE); set arithmetic.resources_servers.arithmetic.port in ${server} to another port, or to 0 for a free one\n`,
    );
  });
});

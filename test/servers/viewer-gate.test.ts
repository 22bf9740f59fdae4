import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findRuns } from '../../src/servers/viewer/run-files.js';
import { ViewerServer } from '../../src/servers/viewer/viewer-server.js';
import { gymnast as gymnastCli } from '../support/run-cli.js';
import { syntheticRow, toLines } from '../support/synthetic-rows.js';
import { rawGet as get } from '../support/raw-get.js';

// gymnast view on a machine others share: who may ask (its own host names), and with which key.

const gymnast = new URL('../../bin/gymnast.js', import.meta.url).pathname;

/** Four rollouts of two tasks, the assistant saying `answer`. */
const rows = (answer: string, count = 4) =>
  toLines(Array.from({ length: count }, (_, i) => syntheticRow({ task: Math.floor(i / 2), rollout: i % 2, reward: i % 2, answer })));

describe('gymnast view answers only to its own address (no DNS rebinding)', () => {
  let directory: string;
  let server: ViewerServer;
  let port: string;
  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'gymnast-view-host-'));
    writeFileSync(join(directory, 'out.jsonl'), rows('ours'));
    server = await ViewerServer.open({ runs: await findRuns(join(directory, 'out.jsonl')) });
    await server.start();
    port = new URL(server.url).port;
  });
  after(async () => {
    await server?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('answers 127.0.0.1, localhost and [::1], at its port or the one a tunnel forwards from', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`, `localhost:${Number(port) + 1}`, 'localhost'])
      assert.equal((await get(server.url, '/api/runs', { host })).status, 200, host);
  });

  it('refuses any other name with 421, saying why and what to do', async () => {
    for (const host of [`evil.example:${port}`, `127.0.0.1.evil.example:${port}`, 'evil.example']) {
      for (const path of ['/api/runs', '/', '/api/runs/out/rollouts/o1']) {
        const answer = await get(server.url, path, { host });
        assert.equal(answer.status, 421, `${host} ${path}`);
        assert.match(answer.body, /answers only to 127\.0\.0\.1, localhost and \[::1\] \(at any port\)/);
        assert.match(answer.body, /--host/);
      }
    }
    // No Host at all: Node's server refuses an HTTP/1.1 request without one before the viewer sees it.
    assert.equal((await get(server.url, '/api/runs', {}, false)).status, 400);
  });

  it('answers any name once bound beyond loopback (--host), where only --api-key guards it', async () => {
    const open = await ViewerServer.open({ runs: await findRuns(join(directory, 'out.jsonl')), host: '0.0.0.0', apiKey: 'sesame' });
    try {
      await open.start();
      const base = `http://127.0.0.1:${new URL(open.url).port}`;
      assert.equal((await get(base, '/api/runs', { host: 'viewer.lab.example', authorization: 'Bearer sesame' })).status, 200);
    } finally {
      await open.close();
    }
  });
});

describe('gymnast view --api-key', () => {
  let directory: string;
  let server: ViewerServer;
  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'gymnast-view-key-'));
    writeFileSync(join(directory, 'out.jsonl'), rows('ours'));
    server = await ViewerServer.open({ runs: await findRuns(join(directory, 'out.jsonl')), apiKey: 'sesame' });
    await server.start();
  });
  after(async () => {
    await server?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('refuses the API and the pages without the key: 401 saying how to give it', async () => {
    for (const path of ['/api/runs', '/', '/app.js']) {
      const answer = await get(server.url, path);
      assert.equal(answer.status, 401, path);
      assert.equal(answer.headers['www-authenticate'], 'Bearer');
      assert.match(answer.body, /\?key=/);
    }
    assert.equal((await get(server.url, '/api/runs', { authorization: 'Bearer wrong' })).status, 401);
    assert.equal((await get(server.url, '/?key=wrong')).status, 401);
  });

  it('answers a bearer token (scripts)', async () => {
    assert.equal((await get(server.url, '/api/runs', { authorization: 'Bearer sesame' })).status, 200);
  });

  it('trades ?key= for an HttpOnly, SameSite=Strict cookie and drops the key from the address', async () => {
    const traded = await get(server.url, '/?key=sesame&x=1');
    assert.equal(traded.status, 303);
    assert.equal(traded.headers.location, '/?x=1');
    const [cookie] = traded.headers['set-cookie'] as string[];
    assert.match(cookie!, /^gymnast_view_\d+=[A-Za-z0-9_-]{40,}; HttpOnly; SameSite=Strict; Path=\/$/);
    assert.ok(!cookie!.includes('sesame'), 'the cookie is a session of its own, not the key');
    const session = cookie!.split(';')[0]!;
    assert.equal((await get(server.url, '/api/runs', { cookie: `other=1; ${session}` })).status, 200);
    assert.equal((await get(server.url, '/api/runs', { cookie: `${session.split('=')[0]}=forged` })).status, 401);
  });

  it('is a flag of the CLI, which prints the address with the key', async () => {
    const viewer = spawn(process.execPath, [gymnast, 'view', join(directory, 'out.jsonl'), '--no-open', '--api-key', 'sesame'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let printed = '';
        viewer.stdout.on('data', (chunk: Buffer) => {
          printed += chunk.toString();
          const found = /http:\/\/\S+/.exec(printed);
          if (found) resolve(found[0]);
        });
        viewer.once('exit', (code) => reject(new Error(`gymnast view exited (${code}) before printing its URL: ${printed}`)));
      });
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/\?key=sesame$/);
      const { origin } = new URL(url);
      assert.equal((await get(origin, '/api/runs')).status, 401);
      assert.equal((await get(origin, '/?key=sesame')).status, 303);
    } finally {
      viewer.kill();
    }
    const empty = await gymnastCli('view', join(directory, 'out.jsonl'), '--no-open', '--api-key', ' ');
    assert.equal(empty.code, 1);
    assert.match(empty.stderr, /--api-key.*expected a key, got an empty one/);
  });
});

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { undiciPool } from '../../src/http-client/undici-pool.fast.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * In a process of its own (the notice is said once per process): an undici without lib/dispatcher/pool.js
 * (a resolve hook refuses the path, as a version that moved the module would). Two clients each ask a
 * loopback server; prints their answers and whether the Pool used is the index's.
 */
const UPGRADED_LIBRARY = `
  import { createServer } from 'node:http';
  import { register } from 'node:module';
  register('data:text/javascript,' + encodeURIComponent(\`
    export async function resolve(specifier, context, next) {
      if (specifier === 'undici/lib/dispatcher/pool.js') throw Object.assign(new Error('Cannot find module ' + specifier), { code: 'ERR_MODULE_NOT_FOUND' });
      return next(specifier, context);
    }\`));
  const { JsonClient } = await import('./src/http-client/json-client.ts');
  const { undiciPool } = await import('./src/http-client/undici-pool.fast.ts');
  const { z } = await import('zod');
  const server = createServer((request, response) => response.end(JSON.stringify({ path: request.url })));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = 'http://127.0.0.1:' + server.address().port;
  const answers = [];
  for (const path of ['/a', '/b']) {
    const client = new JsonClient();
    answers.push(await client.request({ method: 'GET', baseUrl, path, schema: z.object({ path: z.string() }), timeoutMs: 5000 }));
    await client.close();
  }
  server.close();
  console.log(JSON.stringify({ answers, index: (await undiciPool()) === (await import('undici')).Pool }));`;

describe("undici's Pool from its own module, guarded against another version of undici", () => {
  it('is the class the index exports, loaded from lib/dispatcher/pool.js (an upgrade that moves or changes it fails here)', async () => {
    const { Pool } = await import('undici');
    assert.equal((await import('undici/lib/dispatcher/pool.js')).default, Pool);
    assert.equal(await undiciPool(), Pool);
  });

  it("comes from undici's index when the module is gone, requests are served, and one line on stderr per process says so", async () => {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', UPGRADED_LIBRARY], { cwd: root });
    assert.deepEqual(JSON.parse(stdout), { answers: [{ path: '/a' }, { path: '/b' }], index: true });
    const lines = stderr.split('\n').filter((line) => line !== '');
    assert.equal(lines.length, 1, stderr);
    assert.match(
      lines[0]!,
      /^gymnast: fast path "undici Pool module" is off: undici 7\.30\.2 \(written for 7\.30\.2\): its lib\/dispatcher\/pool\.js does not load \(.*\); falling back to undici's index, which loads all of undici: same results, slower\. See docs\/fast-paths\.md\.$/,
    );
  });
});

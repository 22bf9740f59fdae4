import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const bin = new URL('../../bin/gymnast.js', import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

describe('the gymnast command', () => {
  it('prints help, naming its commands', async () => {
    const { stdout } = await run(process.execPath, [bin, '--help']);
    assert.match(stdout, /Usage: gymnast/);
    assert.match(stdout, /environments/);
  });

  it('prints the package version', async () => {
    const { stdout } = await run(process.execPath, [bin, '--version']);
    assert.equal(stdout.trim(), manifest.version);
  });

  it('lists the built-in environments as JSON', async () => {
    const { stdout } = await run(process.execPath, [bin, 'environments', '--json']);
    const names = (JSON.parse(stdout) as { name: string }[]).map((entry) => entry.name);
    assert.deepEqual(names, ['math', 'sliding-puzzle', 'calculator', 'arithmetic']);
  });

  it('exits non-zero with a message on an unknown command', async () => {
    await assert.rejects(run(process.execPath, [bin, 'nope']), (error: { code: number; stderr: string }) => {
      assert.equal(error.code, 1);
      assert.match(error.stderr, /unknown command 'nope'/);
      return true;
    });
  });
});

import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gymnast, gymnastIn } from '../support/run-cli.js';

const folder = mkdtempSync(join(tmpdir(), 'gymnast-sandbox-cli-'));
const file = (name: string, text: string): string => {
  writeFileSync(join(folder, name), text);
  return join(folder, name);
};

describe('gymnast sandbox run', () => {
  it('runs a program on a stdin file and prints its verdict and output', async () => {
    const result = await gymnast(
      'sandbox',
      'run',
      '--language',
      'python',
      file('reverse.py', 'import sys\nprint(sys.stdin.read()[::-1])'),
      '--stdin',
      file('in.txt', 'abc'),
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^verdict: ok, exit code 0, \d+ ms, sandboxed\n--- stdout ---\ncba\n$/);
  });

  it('takes the limits as flags and names the one that stopped the program', async () => {
    const result = await gymnast('sandbox', 'run', '--language', 'python', file('spin.py', 'while True:\n    pass'), '--cpu-seconds', '1', '--json');
    assert.equal(result.code, 0, result.stderr);
    const verdict = JSON.parse(result.stdout) as { status: string; limit: string; signal: string };
    assert.deepEqual([verdict.status, verdict.limit, verdict.signal], ['timeout', 'cpu', 'SIGKILL']);
  });

  it('refuses a limit that is no limit, naming the flag', async () => {
    const result = await gymnast('sandbox', 'run', '--language', 'node', file('ok.js', ''), '--wall-seconds', '0');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^gymnast: config: --wall-seconds: expected a number ≥ 100, got 0\n$/);
  });

  it('without bubblewrap, says how to install it and runs nothing', async () => {
    const result = await gymnastIn({ env: { PATH: folder } }, 'sandbox', 'run', '--language', 'python', file('hello.py', 'print("ran")'));
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^gymnast: sandbox-unavailable: bubblewrap \(bwrap\) is not installed.*`apt-get install bubblewrap`/);
  });

  it('runs unsandboxed only with --unsandboxed, and warns', async () => {
    const result = await gymnastIn(
      { env: { PATH: folder } },
      'sandbox',
      'run',
      '--language',
      'python',
      '--unsandboxed',
      file('etc.py', 'import os\nprint(os.path.exists("/etc"))'),
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /NOT sandboxed\n--- stdout ---\nTrue\n/);
    assert.match(result.stderr, /gymnast: warning: running model-written code WITHOUT a sandbox/);
  });
});

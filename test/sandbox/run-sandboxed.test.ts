import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { findExecutable } from '../../src/sandbox/find-executable.js';
import { hasKind } from '../../src/core/errors/has-kind.js';
import { runSandboxed, SandboxLimits, SandboxPool, UNSANDBOXED_WARNING } from '../../src/sandbox/index.js';
import { processesLeft } from './host-state.js';

const findBwrap = (): string => findExecutable('bwrap')!;
const SMALL = { cpuSeconds: 2, wallMs: 5000, memoryBytes: 256 * 1024 * 1024, processes: 16 };

describe('runSandboxed', () => {
  it('runs a Python program on its stdin and reports ok, its exit code and how long it took', async () => {
    const verdict = await runSandboxed({ language: 'python', code: 'import sys\nprint(sys.stdin.read().upper(), end="")', stdin: 'hello\n', limits: SMALL });
    assert.equal(verdict.status, 'ok');
    assert.equal(verdict.exitCode, 0);
    assert.equal(verdict.stdout, 'HELLO\n');
    assert.deepEqual(verdict.truncated, { stdout: false, stderr: false });
    assert.ok(verdict.durationMs > 0 && verdict.durationMs < 5000);
  });

  it('runs a Node program, and reports its own exit code as a runtime error', async () => {
    const verdict = await runSandboxed({ language: 'node', code: 'console.log(process.version); process.exit(3)' });
    assert.equal(verdict.status, 'runtime-error');
    assert.equal(verdict.exitCode, 3);
    assert.equal(verdict.stdout.trim(), process.version);
  });

  it('has safe defaults for every limit, and refuses a limit that is no limit', () => {
    assert.deepEqual(SandboxLimits.parse({}), {
      cpuSeconds: 10,
      wallMs: 15_000,
      memoryBytes: 512 * 1024 * 1024,
      processes: 16,
      fileBytes: 16 * 1024 * 1024,
      openFiles: 256,
      outputBytes: 1024 * 1024,
      workBytes: 64 * 1024 * 1024,
    });
    assert.throws(() => SandboxLimits.parse({ cpuSeconds: 0 }));
    assert.throws(() => SandboxLimits.parse({ wallMs: 10 }));
    assert.throws(() => SandboxLimits.parse({ memory: 1 }));
  });

  it('without bubblewrap, refuses with one error naming the install command, and never runs the code bare', async () => {
    await assert.rejects(
      runSandboxed({ language: 'python', code: 'print(1)' }, { path: '/nonexistent' }),
      (error) =>
        hasKind(error, 'sandbox-unavailable') && /apt-get install bubblewrap/.test((error as Error).message) && /--unsandboxed/.test((error as Error).message),
    );
  });

  it('says so when bubblewrap cannot build the sandbox, rather than blaming the program', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'gymnast-broken-bwrap-'));
    chmodSync(folder, 0o755);
    // The real bubblewrap, asked for a bind it cannot make (as a sandbox on a machine without user namespaces fails).
    writeFileSync(join(folder, 'bwrap'), `#!/bin/sh\nexec ${findBwrap()} --ro-bind /nonexistent-gymnast /nonexistent-gymnast "$@"\n`, { mode: 0o755 });
    await assert.rejects(
      runSandboxed({ language: 'python', code: 'print(1)' }, { path: `${folder}:/usr/bin` }),
      (error) => hasKind(error, 'sandbox-unavailable') && /bubblewrap could not create the sandbox.*nonexistent-gymnast/s.test((error as Error).message),
    );
  });

  it('runs unsandboxed only when asked, and warns on every such run', async () => {
    const warnings: string[] = [];
    for (let run = 0; run < 2; run++) {
      const verdict = await runSandboxed(
        { language: 'python', code: 'import os\nprint(os.path.exists("/etc"))', limits: SMALL },
        { unsandboxed: true, warn: (message) => warnings.push(message), path: '/nonexistent' },
      );
      assert.equal(verdict.status, 'ok');
      assert.equal(verdict.sandboxed, false);
      assert.equal(verdict.stdout.trim(), 'True');
    }
    assert.deepEqual(warnings, [UNSANDBOXED_WARNING, UNSANDBOXED_WARNING]);
  });

  it('returns only once every process of the run is gone: a daemon the program left is dead when the call returns, run after run', async () => {
    const marker = `gymnast-daemon-${randomBytes(4).toString('hex')}`;
    for (let run = 0; run < 10; run++) {
      const verdict = await runSandboxed({
        language: 'node',
        code: `require('child_process').spawn('/bin/sh', ['-c', 'sleep 60; : ${marker}'], { detached: true, stdio: 'ignore' }).unref();`,
      });
      assert.equal(verdict.status, 'ok');
      assert.deepEqual(processesLeft(marker), [], `run ${run}`);
    }
  });

  it('stops at the abort signal: the run is killed whole and the call rejects as aborted', async () => {
    const marker = `gymnast-abort-${randomBytes(4).toString('hex')}`;
    const controller = new AbortController();
    const running = runSandboxed({
      language: 'python',
      code: `import subprocess, time\nsubprocess.Popen(['/bin/sh', '-c', 'sleep 60; : ${marker}'])\nprint('up', flush=True)\ntime.sleep(60)`,
      limits: SMALL,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 500);
    await assert.rejects(running, (error) => hasKind(error, 'aborted'));
    assert.deepEqual(processesLeft(marker), []);
  });
});

describe('SandboxPool', () => {
  it('runs at most its concurrency at once', async () => {
    const pool = new SandboxPool(2);
    let most = 0;
    const runs = Array.from({ length: 5 }, () => {
      const run = pool.run({ language: 'python', code: 'import time\ntime.sleep(0.2)', limits: SMALL });
      most = Math.max(most, pool.running);
      return run;
    });
    const verdicts = await Promise.all(runs);
    assert.equal(most, 2);
    assert.deepEqual(
      verdicts.map((verdict) => verdict.status),
      ['ok', 'ok', 'ok', 'ok', 'ok'],
    );
  });

  it('rejects a run aborted while it waits for a slot as aborted, and never starts it', async () => {
    const pool = new SandboxPool(1);
    const first = pool.run({ language: 'python', code: 'import time\ntime.sleep(0.5)', limits: SMALL });
    const controller = new AbortController();
    const waiting = pool.run({ language: 'python', code: 'print(1)', limits: SMALL, signal: controller.signal });
    controller.abort();
    await assert.rejects(waiting, (error) => hasKind(error, 'aborted'));
    assert.equal((await first).status, 'ok');
    assert.equal(pool.running, 0);
  });

  it("gives each sandbox its own process cap: one run's fork bomb does not starve another's forks", async () => {
    const pool = new SandboxPool(2);
    const bomb = pool.run({
      language: 'python',
      code: 'import os, time\nwhile True:\n    if os.fork() == 0:\n        time.sleep(3)\n        os._exit(0)',
      limits: { ...SMALL, processes: 8 },
    });
    const forks = pool.run({
      language: 'python',
      code: 'import os, time\ntime.sleep(0.5)\npids = []\nfor _ in range(5):\n    pid = os.fork()\n    if pid == 0:\n        time.sleep(0.5)\n        os._exit(0)\n    pids.append(pid)\nfor _ in pids:\n    os.wait()\nprint("forked", len(pids))',
      limits: { ...SMALL, processes: 8 },
    });
    const [bombVerdict, forksVerdict] = await Promise.all([bomb, forks]);
    assert.equal(bombVerdict.status, 'runtime-error');
    assert.match(bombVerdict.stderr, /BlockingIOError/);
    assert.equal(forksVerdict.status, 'ok', forksVerdict.stderr);
    assert.equal(forksVerdict.stdout.trim(), 'forked 5');
  });
});

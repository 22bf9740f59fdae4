import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { acquireRunLock } from '../../src/collect/run-lock.js';

/**
 * The lock taken in this process (Stryker's mutants are active only here; run-lock.test.ts and
 * run-lock-takeover.test.ts race real processes for it).
 */
function lockIn(): { path: string; output: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gymnast-lock-'));
  return { dir, path: join(dir, 'out_run.lock'), output: join(dir, 'out.jsonl') };
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  return child.pid!;
}

const ago = (path: string, seconds: number) => {
  const then = new Date(Date.now() - seconds * 1000);
  utimesSync(path, then, then);
};

describe('the run lock, taken in this process', () => {
  it('refuses a young unreadable lock, saying how many seconds ago it was written', () => {
    const { path, output } = lockIn();
    writeFileSync(path, '');
    ago(path, 3);
    assert.throws(
      () => acquireRunLock(path, output),
      (error: Error) => /which is unreadable and was written [34]s ago/.test(error.message),
    );
  });

  it('takes over an unreadable lock once old, saying its age in seconds', () => {
    const { path, output } = lockIn();
    writeFileSync(path, '');
    ago(path, 60);
    const notices: string[] = [];
    const lock = acquireRunLock(path, output, { onNotice: (message) => notices.push(message) });
    assert.equal(notices.length, 1);
    assert.match(notices[0]!, /it was unreadable and (60|61)s old/);
    lock.release();
    assert.equal(existsSync(path), false);
  });

  it('leaves a lock another run put in its place when released', () => {
    const { path, output } = lockIn();
    const lock = acquireRunLock(path, output);
    const theirs = `${JSON.stringify({ pid: process.pid + 1, hostname: hostname(), started_at: '2026-01-01T00:00:00.000Z', command: 'gymnast collect' })}\n`;
    writeFileSync(path, theirs);
    lock.release();
    assert.equal(readFileSync(path, 'utf8'), theirs);
  });

  it('tidies the claims a crashed takeover of an earlier lock left, keeping none', async () => {
    const { path, output, dir } = lockIn();
    writeFileSync(path, JSON.stringify({ pid: await deadPid(), hostname: hostname(), started_at: '2026-01-01T00:00:00.000Z', command: 'gymnast collect' }));
    writeFileSync(`${path}.takeover-0123456789abcdef-0`, 'left by a crash');
    const lock = acquireRunLock(path, output);
    assert.deepEqual(
      readdirSync(dir).filter((name) => name.includes('.takeover-')),
      [],
    );
    lock.release();
  });
});

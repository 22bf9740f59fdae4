import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isProcessAlive } from '../../src/util/process-alive.js';

const LOCK = join(tmpdir(), 'gymnast-test-sandboxes.lock');
const OWNER = join(LOCK, 'pid');
const RETRY_MS = 100;
/** A lock whose pid file is still missing after this long was left by a process that died taking it. */
const UNWRITTEN_MS = 5_000;

/**
 * Waits until no other spec file runs sandboxes, then holds that until this process exits. The suite
 * runs files two at a time, and the sandbox specs check that the host is left as it was (no sandboxed
 * process alive, no file outside its work folder): another file's sandboxes running meanwhile would
 * look like one that escaped. A lock left by a process that died is taken over.
 */
export async function holdSandboxes(): Promise<void> {
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(OWNER, String(process.pid));
      process.on('exit', release);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (ownerGone()) rmSync(LOCK, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }
}

/** The holder died without releasing: its pid file names a process that is gone (or was never written, and the lock is old). */
function ownerGone(): boolean {
  let owner: number;
  try {
    owner = Number(readFileSync(OWNER, 'utf8'));
  } catch {
    return lockAgeMs() > UNWRITTEN_MS;
  }
  return Number.isSafeInteger(owner) && owner > 0 && !isProcessAlive(owner);
}

function lockAgeMs(): number {
  try {
    return Date.now() - statSync(LOCK).mtimeMs;
  } catch {
    return 0;
  }
}

function release(): void {
  try {
    if (Number(readFileSync(OWNER, 'utf8')) === process.pid) rmSync(LOCK, { recursive: true, force: true });
  } catch {
    // Already gone: nothing to release.
  }
}

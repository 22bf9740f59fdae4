import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname } from 'node:path';
import { z } from 'zod';
import { RunLockedError } from '../core/errors/run-locked-error.js';
import { cannotWriteIn } from './output-paths.js';
import { writeFailure } from './write-failure.js';
import { isProcessAlive } from '../util/process-alive.js';
import { redactUrls } from '../util/redact-urls.js';

/** Who writes a run: enough for a person to find the process, and for a later run to tell it is gone. */
export const LockHolder = z.object({
  pid: z.number().int().positive(),
  hostname: z.string(),
  started_at: z.string(),
  command: z.string(),
});
export type LockHolder = z.infer<typeof LockHolder>;

/** The lock a run holds on its output until `release`. */
export interface RunLock {
  readonly path: string;
  /** Removes the lock if it is still this run's; never throws (a lock left behind is taken over as stale). */
  release(): void;
}

/**
 * A lock file that does not parse is abandoned once this old. Its writer fills it right after creating
 * it, so an unreadable lock is either being taken this very moment (young) or was left by a run that
 * crashed in between, or by a disk that lost its content in a power cut (old).
 */
export const UNREADABLE_LOCK_GRACE_MS = 10_000;

/** A lock as found on disk, identified by more than its text: a run's fresh lock may reuse the old one's inode. */
interface FoundLock {
  text: string;
  holder: LockHolder | undefined;
  inode: number;
  mtimeMs: number;
}

/**
 * Takes the one-writer lock of `output`: `path` is created exclusively (O_EXCL), holding this process's
 * pid, host, start time and command. A lock whose holder is gone (same host, no such pid) or that is
 * unreadable and old is taken over, with a notice; any other lock refuses the run, naming its holder.
 */
export function acquireRunLock(path: string, output: string, options: { onNotice?: (message: string) => void } = {}): RunLock {
  const text = `${JSON.stringify(currentHolder(), null, 2)}\n`;
  // A few rounds only: each lost one means another run moved in between, and the next look names it.
  for (let round = 0; round < 3; round++) {
    if (tryCreate(path, text)) return { path, release: () => release(path, text) };
    const found = readLock(path);
    if (found === undefined) continue;
    const stale = staleReason(found);
    if (stale === undefined) throw new RunLockedError(path, heldMessage(path, output, found));
    if (claimStale(path, found)) options.onNotice?.(`took over ${path}: ${stale}`);
  }
  throw new RunLockedError(path, `${output} is being claimed by several runs at once (${path} kept changing hands); wait for them, then retry`);
}

function currentHolder(): LockHolder {
  return { pid: process.pid, hostname: hostname(), started_at: new Date().toISOString(), command: redacted([basename(process.argv[1] ?? 'node'), ...process.argv.slice(2)]).join(' ') };
}

/** The lock file is readable by anyone who can list the folder: an API key on the command line, or credentials in a URL, stay out of it. */
function redacted(args: readonly string[]): string[] {
  return args.map((arg, index) => (args[index - 1] === '--api-key' ? '***' : redactUrls(arg.replace(/^--api-key=.*/, '--api-key=***'))));
}

/** Creates the lock with its content, or reports that one exists; a half-made lock is removed. */
function tryCreate(path: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw cannotWriteIn(dirname(path), error);
  }
  try {
    writeFileSync(fd, text);
  } catch (error) {
    closeSync(fd);
    unlinkSync(path);
    throw writeFailure(path, error, 'free space, then rerun');
  }
  closeSync(fd);
  return true;
}

/** The lock at `path`, or undefined when it went away meanwhile (its run ended). */
function readLock(path: string): FoundLock | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    const text = readFileSync(fd, 'utf8');
    return { text, holder: parseHolder(text), inode: stats.ino, mtimeMs: stats.mtimeMs };
  } finally {
    closeSync(fd);
  }
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const parsed = LockHolder.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Why the lock no longer protects a live run, or undefined when it may. */
function staleReason(found: FoundLock): string | undefined {
  const { holder } = found;
  if (holder === undefined) {
    const age = Date.now() - found.mtimeMs;
    return age > UNREADABLE_LOCK_GRACE_MS ? `it was unreadable and ${Math.round(age / 1000)}s old (a run crashed while taking it)` : undefined;
  }
  if (holder.hostname !== hostname() || isProcessAlive(holder.pid)) return undefined;
  return `its run (pid ${holder.pid} on ${holder.hostname}, since ${holder.started_at}) is gone`;
}

function heldMessage(path: string, output: string, found: FoundLock): string {
  const { holder } = found;
  if (holder === undefined) {
    return `${output} is locked by ${path}, which is unreadable and was written ${Math.round((Date.now() - found.mtimeMs) / 1000)}s ago: another run may be taking it this moment. Wait and retry; if no run is writing ${output}, remove ${path}.`;
  }
  const who = `pid ${holder.pid}${holder.pid === process.pid ? ' (this process)' : ''} on host ${holder.hostname} since ${holder.started_at} (${holder.command})`;
  if (holder.hostname !== hostname()) {
    return `${output} is being written by ${who}; a run on another host cannot be checked from here: wait for it, or if that run is gone, remove ${path} by hand.`;
  }
  return `${output} is being written by ${who}; wait for it or stop it (its lock is ${path}).`;
}

/**
 * Removes a stale lock without removing a fresh one that another run made meanwhile: the lock is moved
 * aside (one rename wins per file), and if what moved is not the lock judged stale, it is put back.
 * Returns whether the stale lock was the one removed. Two runs taking over one stale lock together
 * thus end with one lock; only a third run creating its own in the instant a lock is aside slips by.
 */
function claimStale(path: string, stale: FoundLock): boolean {
  const aside = `${path}.${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  const moved = statSync(aside);
  const same = moved.ino === stale.inode && moved.mtimeMs === stale.mtimeMs && readFileSync(aside, 'utf8') === stale.text;
  if (!same) putBack(aside, path);
  else unlinkSync(aside);
  return same;
}

function putBack(aside: string, path: string): void {
  try {
    linkSync(aside, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  unlinkSync(aside);
}

function release(path: string, text: string): void {
  try {
    if (readFileSync(path, 'utf8') === text) unlinkSync(path);
  } catch {
    // Left behind, the lock names this process, which is gone by the next run: that run takes it over.
  }
}

import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { LockHolder } from './lock-holder.js';

/** A lock as found on disk, identified by more than its text: a run's fresh lock may reuse the old one's inode. */
export interface FoundLock {
  text: string;
  /** Undefined when the text is not a lock holder (a lock caught half-written, or damaged). */
  holder: LockHolder | undefined;
  inode: number;
  mtimeMs: number;
}

/** The lock at `path`, or undefined when there is none (its run ended, or it was never taken). */
export function readLock(path: string): FoundLock | undefined {
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

/** Whether two reads found the very same lock file, not merely one with the same text or inode. */
export function sameLock(a: FoundLock | undefined, b: FoundLock): boolean {
  return a !== undefined && a.inode === b.inode && a.mtimeMs === b.mtimeMs && a.text === b.text;
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const parsed = LockHolder.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

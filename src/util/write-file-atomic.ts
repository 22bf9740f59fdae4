import { randomBytes } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { open, realpath, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';

/** The whole content at once, or a function that streams it into the file (which it must not end). */
export type AtomicContent = string | ((out: Writable) => Promise<void>);

/**
 * Replaces `path` with `content` so that a reader, a crash (kill -9, a power cut) or a full disk finds
 * either the previous file whole or the new one whole, never a torn one: the content goes to a
 * temporary file in the same folder (a rename is atomic only within one file system), is synced to the
 * disk, then renamed over `path`. A failed write removes the temporary file and leaves `path` as it was.
 * A symbolic link at `path` is kept, and its target replaced.
 */
export async function writeFileAtomic(path: string, content: AtomicContent): Promise<void> {
  const target = await linkTarget(path);
  const temporary = join(dirname(target), `.${basename(target)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeSynced(temporary, content);
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

async function linkTarget(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return path;
    throw error;
  }
}

/** Writes a new file and syncs it: without the sync, a power cut after the rename could leave it empty. */
async function writeSynced(path: string, content: AtomicContent): Promise<void> {
  const file = createWriteStream(path, { flags: 'wx' });
  // Listened to from the start: a write the OS refuses must reach the caller, not crash the process unheard.
  const written = finished(file);
  written.catch(() => undefined);
  try {
    if (typeof content === 'string') file.end(content);
    else {
      await content(file);
      file.end();
    }
    await written;
  } catch (error) {
    await closed(file);
    throw error;
  }
  const handle = await open(path, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Ends a stream that failed half way and waits for its descriptor to close, so the file can be removed. */
async function closed(file: WriteStream): Promise<void> {
  if (file.closed) return;
  const done = new Promise<void>((resolve) => file.once('close', () => resolve()));
  file.destroy();
  await done;
}

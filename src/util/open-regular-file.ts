import { constants, type Stats } from 'node:fs';
import { lstat, open, type FileHandle } from 'node:fs/promises';

/** A regular file opened for reading, and its descriptor's own stats (what was opened, not what the name pointed to before). */
export interface OpenedFile {
  handle: FileHandle;
  stats: Stats;
}

/**
 * O_NOFOLLOW: a link at the name fails the open (ELOOP) rather than being followed. O_NONBLOCK: a
 * FIFO put at the name cannot hang the open (reads of a regular file ignore it). Both are 0 where the
 * platform has no such flag; the lstat-against-fstat comparison still catches a swap there.
 */
const READ_NO_FOLLOW = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * Opens `path` for reading only if it is a regular file itself: not a symbolic link (to anywhere),
 * not a folder, FIFO, socket or device. The opened descriptor must be the very file the name showed,
 * so a link swapped in between the check and the open is refused; read from `handle`, never from the
 * path again. `{ refused }` says why; a missing file fails as `open` does (ENOENT).
 */
export async function openRegularFile(path: string): Promise<OpenedFile | { refused: string }> {
  const named = await lstat(path);
  const problem = notRegularFile(named);
  if (problem !== undefined) return { refused: problem };
  let handle: FileHandle;
  try {
    handle = await open(path, READ_NO_FOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') return { refused: 'it was replaced by a symbolic link as it was opened' };
    throw error;
  }
  const stats = await handle.stat();
  if (stats.isFile() && stats.dev === named.dev && stats.ino === named.ino) return { handle, stats };
  await handle.close();
  return { refused: 'it was replaced as it was opened' };
}

/** Why `stats` (from `lstat`) are not of a regular file, or undefined when they are. */
export function notRegularFile(stats: Stats): string | undefined {
  if (stats.isSymbolicLink()) return 'it is a symbolic link';
  return stats.isFile() ? undefined : `it is ${kindOf(stats)}, not a regular file`;
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  return 'a device';
}

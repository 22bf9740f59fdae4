import { closeSync, openSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { cannotWriteIn } from './output-paths.js';
import { writeFailure } from './write-failure.js';

/**
 * Creates `path` with `text` unless it exists (O_EXCL: of several processes, one creates it), and says
 * whether it did. A file this call could not fill is removed.
 */
export function createExclusive(path: string, text: string): boolean {
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

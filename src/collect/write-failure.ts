import { WriteFailedError } from '../core/errors/write-failed-error.js';

const reasons: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exhausted',
  EFBIG: 'the file reached its size limit (ulimit -f, or the file system maximum)',
  EIO: 'an I/O error',
};

/** What a failed write in the middle of a run should tell the user: what is kept, and how to go on. */
export const resumeAdvice = 'the rows written before it are kept whole; free space (or lift the limit), then rerun with --resume';

/**
 * An OS error from writing `path` as a `WriteFailedError` naming the file, the reason and the code;
 * anything that is not an OS error (a bug) is returned as it is, to surface with its stack.
 */
export function writeFailure(path: string, error: unknown, advice: string = resumeAdvice): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== 'string') return error;
  const reason = reasons[code] ?? (error as Error).message;
  return new WriteFailedError(path, code, `cannot write ${path}: ${reason} (${code}); ${advice}`, { cause: error });
}

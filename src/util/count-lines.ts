import { createReadStream } from 'node:fs';

/**
 * The lines of a file, its last one counted whether or not it ends with a newline; 0 for an empty or
 * missing file. Streamed in chunks and counted by searching for newlines, not by splitting text: a
 * file of gigabytes costs one read through it and constant memory.
 */
export async function countLines(path: string): Promise<number> {
  let lines = 0;
  let last = 10;
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
      for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) lines += 1;
      if (chunk.length > 0) last = chunk[chunk.length - 1]!;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  return last === 10 ? lines : lines + 1;
}

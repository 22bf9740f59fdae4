import { constants } from 'node:buffer';
import { createReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

export interface JsonLine {
  /** 1-based line number in the file. */
  line: number;
  text: string;
}

/** A line too long to hold: only its length was counted, its text was dropped as it was read. */
export interface OverlongLine {
  line: number;
  overlong: true;
  /** Its length in characters. */
  length: number;
}

/** A line longer than a reader takes, named by file and line. */
export class LineTooLongError extends Error {
  readonly path: string;
  readonly line: number;

  constructor(path: string, line: number, length: number, limit: number) {
    super(`${path}:${line}: ${overlongMessage(length, limit)}`);
    this.name = 'LineTooLongError';
    this.path = path;
    this.line = line;
  }
}

export function overlongMessage(length: number, limit: number): string {
  return `line too long: ${length} characters, more than the ${limit} a line may have`;
}

/**
 * The non-blank lines of a JSONL file, streamed (memory stays flat on any file size). A line longer
 * than V8 can hold as one string is a `LineTooLongError` rather than a RangeError from deep inside.
 * Given `handle`, the lines are read from it (closed at the end) and `path` only names the file.
 */
export async function* readJsonLines(path: string, signal?: AbortSignal, handle?: FileHandle): AsyncGenerator<JsonLine> {
  for await (const entry of readJsonLineEntries(path, { maxLineLength: constants.MAX_STRING_LENGTH, ...(signal ? { signal } : {}), ...(handle ? { handle } : {}) })) {
    if ('overlong' in entry) throw new LineTooLongError(path, entry.line, entry.length, constants.MAX_STRING_LENGTH);
    yield entry;
  }
}

export interface ReadLineOptions {
  signal?: AbortSignal;
  /** Longer lines come out as `OverlongLine`s, their text never held in memory. */
  maxLineLength: number;
  /** An opened file to read rather than opening `path` (closed when the lines end or the reader stops). */
  handle?: FileHandle;
}

/**
 * The non-blank lines of a JSONL file, split on `\n` (a `\r` before it dropped, a UTF-8 byte order mark
 * at the start ignored), and each line over `maxLineLength` as an `OverlongLine`, so a reader that
 * reports bad lines can report that one and go on. A file that cannot be read fails with Node's own
 * error (ENOENT, EISDIR, …), its `path` set even where Node leaves it out (a read of a directory).
 */
export async function* readJsonLineEntries(path: string, { signal, maxLineLength, handle }: ReadLineOptions): AsyncGenerator<JsonLine | OverlongLine> {
  let parts: string[] = [];
  let length = 0;
  let line = 0;
  let first = true;
  const take = (): JsonLine | OverlongLine => {
    line += 1;
    const text = parts.join('').replace(/\r$/, '');
    const entry: JsonLine | OverlongLine = length > maxLineLength ? { line, overlong: true, length } : { line, text };
    parts = [];
    length = 0;
    return entry;
  };
  try {
    for await (const chunk of createReadStream(path, { encoding: 'utf8', ...(signal ? { signal } : {}), ...(handle ? { fd: handle } : {}) }) as AsyncIterable<string>) {
      let start = first && chunk.startsWith('\uFEFF') ? 1 : 0;
      first = false;
      for (;;) {
        const newline = chunk.indexOf('\n', start);
        const end = newline < 0 ? chunk.length : newline;
        length += end - start;
        if (length <= maxLineLength) parts.push(chunk.slice(start, end));
        else parts = [];
        if (newline < 0) break;
        const entry = take();
        if ('overlong' in entry || entry.text.trim() !== '') yield entry;
        start = newline + 1;
      }
    }
  } catch (error) {
    throw withPath(error, path);
  }
  if (length > 0) {
    const entry = take();
    if ('overlong' in entry || entry.text.trim() !== '') yield entry;
  }
}

function withPath(error: unknown, path: string): unknown {
  const errno = error as NodeJS.ErrnoException;
  if (typeof errno?.code === 'string' && typeof errno.syscall === 'string' && errno.path === undefined) errno.path = path;
  return error;
}

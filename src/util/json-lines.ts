import { constants, isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

export interface JsonLine {
  /** 1-based line number in the file. */
  line: number;
  text: string;
  /**
   * Set on a last line that ends the file without a newline. Python reads such a line without the
   * `\n` every other line keeps, so NeMo Gym's collector, which numbers tasks by raw line, tells it
   * from an identical line that has one.
   */
  unterminated?: true;
}

/** A line too long to hold: only its bytes were counted, none kept past the limit. */
export interface OverlongLine {
  line: number;
  overlong: true;
  /** Its length in bytes. */
  bytes: number;
}

/** A line whose bytes are not UTF-8, with where the first bad one is. */
export interface InvalidUtf8Line {
  line: number;
  invalidUtf8: true;
  /** Offset of the first bad byte from the start of the line, counted from 0. */
  lineOffset: number;
  /** The same byte's offset from the start of the file, counted from 0. */
  fileOffset: number;
  /** Its value. */
  byte: number;
}

/** A line longer than a reader takes, named by file and line. */
export class LineTooLongError extends Error {
  readonly path: string;
  readonly line: number;

  constructor(path: string, line: number, bytes: number, limit: number) {
    super(`${path}:${line}: line too long: ${bytes} bytes, more than the ${limit} a line may have`);
    this.name = 'LineTooLongError';
    this.path = path;
    this.line = line;
  }
}

/**
 * The non-blank lines of a JSONL file, streamed (memory stays flat on any file size). A line longer
 * than V8 can hold as one string is a `LineTooLongError` rather than a RangeError from deep inside.
 * Bytes that are not UTF-8 are read as U+FFFD: these files are gymnast's own, and a line cut by a
 * crash is the caller's to recognise. Given `handle`, the lines are read from it (closed at the end) and `path` only names the file.
 */
export async function* readJsonLines(path: string, signal?: AbortSignal, handle?: FileHandle): AsyncGenerator<JsonLine> {
  for await (const entry of readJsonLineEntries(path, {
    maxLineBytes: constants.MAX_STRING_LENGTH,
    ...(signal ? { signal } : {}),
    ...(handle ? { handle } : {}),
  })) {
    if ('overlong' in entry) throw new LineTooLongError(path, entry.line, entry.bytes, constants.MAX_STRING_LENGTH);
    if ('text' in entry) yield entry;
  }
}

export interface ReadLineOptions {
  signal?: AbortSignal;
  /** Longer lines come out as `OverlongLine`s: no more of one than this is ever held. */
  maxLineBytes: number;
  /** Lines that are not UTF-8 come out as `InvalidUtf8Line`s instead of text with U+FFFD for the bad bytes. */
  checkUtf8?: boolean;
  /** An opened file to read rather than opening `path` (closed when the lines end or the reader stops). */
  handle?: FileHandle;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const BYTE_ORDER_MARK = '\uFEFF';

/**
 * The non-blank lines of a JSONL file, split on `\n` (a `\r` before it dropped, a UTF-8 byte order mark
 * at the start ignored), and each line over `maxLineBytes` as an `OverlongLine`, so a reader that
 * reports bad lines can report that one and go on. Lines are split as bytes, so a line is measured
 * before anything of it is decoded, and the bytes of one past the limit are dropped as they stream
 * by. A file that cannot be read fails with Node's own error (ENOENT, EISDIR, …), its `path` set even
 * where Node leaves it out (a read of a directory).
 */
export async function* readJsonLineEntries(
  path: string,
  { signal, maxLineBytes, checkUtf8 = false, handle }: ReadLineOptions,
): AsyncGenerator<JsonLine | OverlongLine | InvalidUtf8Line> {
  /** The line that started in an earlier chunk, up to the limit. */
  let parts: Buffer[] = [];
  let bytes = 0;
  let line = 0;
  /** Where the current line and the current chunk start in the file. */
  let lineStart = 0;
  let chunkStart = 0;
  const extend = (piece: Buffer) => {
    bytes += piece.length;
    if (bytes <= maxLineBytes) parts.push(piece);
    else parts = [];
  };
  const finish = (atEnd = false): JsonLine | OverlongLine | InvalidUtf8Line | undefined => {
    line += 1;
    const [at, length, held] = [lineStart, bytes, parts];
    parts = [];
    bytes = 0;
    if (length > maxLineBytes) return { line, overlong: true, bytes: length };
    const whole = held.length === 1 ? held[0]! : Buffer.concat(held);
    const content = whole.at(-1) === CARRIAGE_RETURN ? whole.subarray(0, -1) : whole;
    if (checkUtf8 && !isUtf8(content)) return invalidUtf8(line, at, content);
    const text = content.toString('utf8');
    const entry = nonBlank(line, line === 1 && text.startsWith(BYTE_ORDER_MARK) ? text.slice(1) : text);
    // A last `\r` ends the line for Python too (universal newlines read it as `\n`).
    return entry && atEnd && content === whole ? { ...entry, unterminated: true } : entry;
  };
  try {
    for await (const chunk of createReadStream(path, { ...(signal ? { signal } : {}), ...(handle ? { fd: handle } : {}) }) as AsyncIterable<Buffer>) {
      const first = chunk.indexOf(NEWLINE);
      const last = chunk.lastIndexOf(NEWLINE);
      // The lines wholly inside the chunk are checked in one call: bytes split only at '\n' (never part
      // of a longer sequence) are UTF-8 exactly when each piece is. Per line, it was most of the reading.
      const inner = !checkUtf8 || first === last || isUtf8(chunk.subarray(first + 1, last));
      let start = 0;
      for (let newline = first; newline !== -1; newline = chunk.indexOf(NEWLINE, start)) {
        let entry: JsonLine | OverlongLine | InvalidUtf8Line | undefined;
        if (start > 0 && inner) entry = innerLine(chunk, start, newline, (line += 1), maxLineBytes);
        else {
          extend(chunk.subarray(start, newline));
          entry = finish();
        }
        lineStart = chunkStart + newline + 1;
        if (entry) yield entry;
        start = newline + 1;
      }
      extend(chunk.subarray(start));
      chunkStart += chunk.length;
    }
  } catch (error) {
    throw withPath(error, path);
  }
  if (bytes > 0) {
    const entry = finish(true);
    if (entry) yield entry;
  }
}

/** A line that starts and ends inside one chunk, already known to be UTF-8. */
function innerLine(chunk: Buffer, start: number, newline: number, line: number, maxLineBytes: number): JsonLine | OverlongLine | undefined {
  if (newline - start > maxLineBytes) return { line, overlong: true, bytes: newline - start };
  const end = newline > start && chunk[newline - 1] === CARRIAGE_RETURN ? newline - 1 : newline;
  return nonBlank(line, chunk.toString('utf8', start, end));
}

function nonBlank(line: number, text: string): JsonLine | undefined {
  return text.trim() === '' ? undefined : { line, text };
}

/**
 * Where a line stops being UTF-8. Decoding with replacement is exact up to the first bad sequence, and
 * the first U+FFFD that the bytes do not spell out (EF BF BD) stands where that sequence starts.
 */
function invalidUtf8(line: number, lineStart: number, bytes: Buffer): InvalidUtf8Line {
  const text = bytes.toString('utf8');
  let offset = 0;
  let decoded = 0;
  for (let at = text.indexOf('\uFFFD'); at !== -1; at = text.indexOf('\uFFFD', at + 1)) {
    offset += Buffer.byteLength(text.slice(decoded, at));
    decoded = at;
    if (!(bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd)) break;
  }
  return { line, invalidUtf8: true, lineOffset: offset, fileOffset: lineStart + offset, byte: bytes[offset]! };
}

function withPath(error: unknown, path: string): unknown {
  const errno = error as NodeJS.ErrnoException;
  if (typeof errno?.code === 'string' && typeof errno.syscall === 'string' && errno.path === undefined) errno.path = path;
  return error;
}

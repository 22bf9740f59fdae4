import { openRunFile } from './open-run-file.js';

/** One complete line of a file: its bytes are `[offset, offset + length)`, the `\n` (and a `\r` before it) left out. */
export interface ScannedLine {
  offset: number;
  length: number;
  text: string;
}

const CHUNK = 1 << 20;
const NEWLINE = 0x0a;
const RETURN = 0x0d;

/**
 * The complete lines of `path` from byte `from` to its current end, each with its byte offset, and the
 * offset the next scan starts at. A last line without its `\n` is left for the next scan: a writer may
 * be halfway through it. Blank lines are skipped; a UTF-8 byte order mark at the file's start is too.
 * `onChunk` hears the offset reached after each chunk's lines, so a reader can show what it has so far.
 */
export async function scanLines(path: string, from: number, onLine: (line: ScannedLine) => void, onChunk?: (consumed: number) => void): Promise<number> {
  const file = await openRunFile(path);
  try {
    let position = from;
    let carry: Buffer | undefined;
    let carryStart = from;
    let consumed = from;
    const buffer = Buffer.allocUnsafe(CHUNK);
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, CHUNK, position);
      if (bytesRead === 0) break;
      const chunk = carry ? Buffer.concat([carry, buffer.subarray(0, bytesRead)]) : buffer.subarray(0, bytesRead);
      const chunkStart = carry ? carryStart : position;
      position += bytesRead;
      let start = 0;
      for (let end = chunk.indexOf(NEWLINE, start); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
        emit(chunk, start, end, chunkStart, onLine);
        start = end + 1;
      }
      consumed = chunkStart + start;
      // The unfinished tail is copied: `buffer` is reused by the next read.
      carry = start < chunk.length ? Buffer.from(chunk.subarray(start)) : undefined;
      carryStart = consumed;
      onChunk?.(consumed);
    }
    return consumed;
  } finally {
    await file.close();
  }
}

function emit(chunk: Buffer, start: number, end: number, chunkStart: number, onLine: (line: ScannedLine) => void): void {
  let first = start;
  if (chunkStart + first === 0 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) first += 3;
  const last = end > first && chunk[end - 1] === RETURN ? end - 1 : end;
  const text = chunk.toString('utf8', first, last);
  if (text.trim() === '') return;
  onLine({ offset: chunkStart + first, length: last - first, text });
}

/** The bytes of one line as text, read at its offset (a row is never held after it was indexed). */
export async function readLineAt(path: string, offset: number, length: number): Promise<string> {
  const file = await openRunFile(path);
  try {
    const buffer = Buffer.allocUnsafe(length);
    const { bytesRead } = await file.read(buffer, 0, length, offset);
    return buffer.toString('utf8', 0, bytesRead);
  } finally {
    await file.close();
  }
}

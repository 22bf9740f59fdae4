import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { writeFailure } from './write-failure.js';

/**
 * Appends one JSON object per line and hands each write to the OS before returning, so a crash loses at
 * most the lines being written (which resume detects and repairs).
 *
 * A write the OS refuses (a full disk) is cut back off the file, and every later write is refused:
 * rows written after a cut line would make the file unreadable to `--resume` (issue 9).
 */
export class JsonlSink {
  readonly path: string;
  readonly #fd: number;
  /** The file's size after its last complete line: where a failed write is cut back to. */
  #committed: number;
  #failure: unknown;

  constructor(path: string, options: { truncate?: boolean } = {}) {
    this.path = path;
    this.#fd = openSync(path, options.truncate ? 'w' : 'a');
    this.#committed = fstatSync(this.#fd).size;
  }

  /** Why the sink stopped taking writes, once one failed. */
  get failure(): unknown {
    return this.#failure;
  }

  write(value: unknown): void {
    this.writeLines(`${JSON.stringify(value)}\n`);
  }

  /** Appends whole lines (`text` ends with a newline): many rows in one write, all kept or all cut back. */
  writeLines(text: string): void {
    if (this.#failure !== undefined) throw this.#failure;
    let length = 0;
    try {
      // The string itself, not a Buffer of it: one copy less per write. A write may take fewer bytes than
      // asked (a full disk, a signal): the rest is finished before the next line starts.
      let written = writeSync(this.#fd, text);
      length = Buffer.byteLength(text);
      if (written < length) {
        const bytes = Buffer.from(text);
        while (written < length) written += writeSync(this.#fd, bytes, written);
      }
    } catch (error) {
      this.#failure = writeFailure(this.path, error);
      this.#cutBack();
      throw this.#failure;
    }
    this.#committed += length;
  }

  /** Forces the writes to disk (at the end of a run; per line it would cost a disk flush per rollout). */
  sync(): void {
    try {
      fsyncSync(this.#fd);
    } catch (error) {
      // A pipe or a device (`--output /dev/stdout`) has nothing to flush and says so with EINVAL.
      if ((error as NodeJS.ErrnoException).code === 'EINVAL') return;
      throw writeFailure(this.path, error);
    }
  }

  close(): void {
    try {
      this.sync();
    } finally {
      closeSync(this.#fd);
    }
  }

  /** Drops the part of a line the OS took before refusing the rest. */
  #cutBack(): void {
    try {
      ftruncateSync(this.#fd, this.#committed);
    } catch {
      // Not fatal: no line follows the cut one (writes are refused from now on), and `--resume` cuts a
      // last incomplete line itself. The write's own error is the one worth reporting.
    }
  }
}

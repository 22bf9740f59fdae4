import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';

/**
 * Appends one JSON object per line and flushes each to the OS before returning, so a crash loses at
 * most the line being written (which resume detects and repairs).
 */
export class JsonlSink {
  readonly path: string;
  readonly #fd: number;

  constructor(path: string, options: { truncate?: boolean } = {}) {
    this.path = path;
    this.#fd = openSync(path, options.truncate ? 'w' : 'a');
  }

  write(value: unknown): void {
    const bytes = Buffer.from(`${JSON.stringify(value)}\n`);
    // A write may take fewer bytes than asked (a full disk, a signal): finish the line before the next one starts.
    for (let written = 0; written < bytes.length; ) written += writeSync(this.#fd, bytes, written);
  }

  /** Forces the writes to disk (at the end of a run; per line it would cost a disk flush per rollout). */
  sync(): void {
    fsyncSync(this.#fd);
  }

  close(): void {
    this.sync();
    closeSync(this.#fd);
  }
}

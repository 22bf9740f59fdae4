import { mkdir, open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { hostname as osHostname } from 'node:os';
import { join } from 'node:path';
import { OutputPathError } from '../core/errors/output-path-error.js';
import { WriteFailedError } from '../core/errors/write-failed-error.js';
import { fileErrorReason } from '../util/file-error-reason.js';
import { type EventContent, encodeEvent, FILE_VERSION } from './event-message.js';
import { tfeventsRecord } from './tfevents-record.js';

export interface EventFileWriterOptions {
  /** Milliseconds since the epoch (default `Date.now`): the file's name and each event's wall time. */
  now?: () => number;
  /** In the file's name, as TensorBoard's writers put it (default the machine's). */
  hostname?: string;
}

/**
 * A TensorBoard event file that scalars are appended to as a run goes: `events.out.tfevents.<seconds>.
 * <hostname>.<pid>.<n>` in its folder, as TensorFlow's and PyTorch's writers name theirs (TensorBoard
 * reads every file whose name holds `tfevents`; `n` keeps two writers of one process and second apart).
 * Each `write` is one record appended in one write call behind the caller, in order: the run loop never
 * waits on the disk, and a run that crashes keeps every batch written before. A failed write is kept
 * and raised by `flush` and `close`; the batches after it are dropped.
 */
export class EventFileWriter {
  private pending: Promise<void> = Promise.resolve();
  private failure: unknown;

  private constructor(
    /** The event file. */
    readonly path: string,
    private readonly handle: FileHandle,
    private readonly now: () => number,
  ) {}

  /** Creates `folder` when missing and a new event file in it, its first record the file version. */
  static async open(folder: string, options: EventFileWriterOptions = {}): Promise<EventFileWriter> {
    const now = options.now ?? Date.now;
    await makeFolder(folder);
    const name = `events.out.tfevents.${Math.floor(now() / 1000)}.${options.hostname ?? osHostname()}.${process.pid}`;
    const { path, handle } = await createNew(folder, name);
    const writer = new EventFileWriter(path, handle, now);
    writer.append(0, { fileVersion: FILE_VERSION });
    await writer.flush().catch(async (error: unknown) => {
      await handle.close();
      throw error;
    });
    return writer;
  }

  /** Appends `scalars` (tag → value, written as float32) at `step`, timed now; returns before the disk has them. */
  write(step: number, scalars: ReadonlyMap<string, number>): void {
    if (scalars.size > 0) this.append(step, { scalars });
  }

  /** Resolves once every write so far is in the file; rejects with the first one that failed. */
  async flush(): Promise<void> {
    await this.pending;
    if (this.failure !== undefined) throw this.failure;
  }

  /** Flushes and closes the file; the file is closed even when a write failed. */
  async close(): Promise<void> {
    await this.pending;
    await this.handle.close();
    if (this.failure !== undefined) throw this.failure;
  }

  private append(step: number, content: EventContent): void {
    const record = tfeventsRecord(encodeEvent({ wallTime: this.now() / 1000, step, content }));
    this.pending = this.pending.then(async () => {
      if (this.failure !== undefined) return;
      try {
        await writeAll(this.handle, record);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
        this.failure = new WriteFailedError(this.path, code, `${this.path}: the TensorBoard event file could not be written (${code})`, { cause: error });
      }
    });
  }
}

/** All of `bytes`: a write may take fewer than it was given (a disk filling up), and the rest must follow, not be lost. */
async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  for (let written = 0; written < bytes.length; ) written += (await handle.write(bytes, written)).bytesWritten;
}

/** The folder, made when missing; one that cannot be (a file or a link to one in the way, no permission) is refused by name. */
async function makeFolder(folder: string): Promise<void> {
  try {
    await mkdir(folder, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'EEXIST' || code === 'ENOTDIR' ? 'a file is in the way of the folder' : (fileErrorReason(error) ?? String(error));
    throw new OutputPathError(folder, `${folder}: ${reason}`, { cause: error });
  }
}

/** A file of that name that no one else has, made here: `.0`, else the next free number. */
async function createNew(folder: string, name: string): Promise<{ path: string; handle: FileHandle }> {
  for (let n = 0; ; n++) {
    const path = join(folder, `${name}.${n}`);
    try {
      return { path, handle: await open(path, 'wx') };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw new OutputPathError(path, `${path}: ${fileErrorReason(error) ?? String(error)}`, { cause: error });
    }
  }
}

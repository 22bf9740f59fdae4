import { existsSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { ConfigError } from '../core/errors/config-error.js';
import { NumberList } from '../metrics/number-list.js';
import { RolloutKeyList } from '../metrics/rollout-key-list.js';
import { readJsonLines } from '../util/json-lines.js';
import { collectPaths } from './collect-paths.js';

/** One parsed line of a JSONL file and where it is (`file:line`, for errors). */
export interface JsonRow {
  value: unknown;
  file: string;
  line: number;
  where: string;
}

/** The values of a JSONL file, streamed; a missing file or a line that is not JSON is an error naming it. */
export async function* jsonRows(file: string, signal?: AbortSignal): AsyncGenerator<JsonRow> {
  if (!existsSync(file)) throw new ConfigError(`cannot read ${file}: no such file`);
  for await (const { line, text } of readJsonLines(file, signal)) {
    const where = `${file}:${line}`;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new ConfigError(`${where}: not valid JSON (${(error as Error).message})`);
    }
    yield { value, file, line, where };
  }
}

/** A line of a run's files, parsed once for every reader of the pass. */
export interface RunLine extends JsonRow {
  text: string;
  /** Why the line is not JSON (`value` is then undefined): a reader may fail on it or read it its own way. */
  error?: Error;
}

/** Which of a run's files an outcome line came from. */
export type OutcomeSource = 'results' | 'failures';

/**
 * One reader of a run's files (the aggregate, the health checks). `readRunFiles` feeds every reader
 * each line in turn: the plan first, then the results, then the failure sidecars.
 */
export interface RunRowReader {
  planned(line: RunLine): void | Promise<void>;
  outcome(line: RunLine, source: OutcomeSource): void | Promise<void>;
}

/** A run's files: its materialized inputs, result files and failure sidecars. */
export interface RunFiles {
  materialized?: readonly string[];
  results: readonly string[];
  failures?: readonly string[];
}

/**
 * Streams a run's files once for several readers, each line read and parsed once: what they would
 * cost read one after the other, the file's reading and `JSON.parse`, is paid once. A missing file is
 * an error naming it; a reader that throws ends the pass.
 */
export async function readRunFiles(files: RunFiles, readers: readonly RunRowReader[], signal?: AbortSignal): Promise<void> {
  const each = async (file: string, visit: (reader: RunRowReader, line: RunLine) => void | Promise<void>) => {
    for await (const line of runLines(file, signal)) {
      for (const reader of readers) {
        const visiting = visit(reader, line);
        if (visiting) await visiting;
      }
    }
  };
  for (const file of files.materialized ?? []) await each(file, (reader, line) => reader.planned(line));
  for (const file of files.results) await each(file, (reader, line) => reader.outcome(line, 'results'));
  for (const file of files.failures ?? []) await each(file, (reader, line) => reader.outcome(line, 'failures'));
}

async function* runLines(file: string, signal?: AbortSignal): AsyncGenerator<RunLine> {
  if (!existsSync(file)) throw new ConfigError(`cannot read ${file}: no such file`);
  for await (const { line, text } of readJsonLines(file, signal)) {
    const where = `${file}:${line}`;
    let value: unknown;
    let error: Error | undefined;
    try {
      value = JSON.parse(text);
    } catch (caught) {
      error = caught as Error;
    }
    yield error ? { value, error, text, file, line, where } : { value, text, file, line, where };
  }
}

/**
 * Rows read back by file and line, going forward through the file: reading an earlier line starts the
 * file over. Rows asked for in file order (a plan read in task order) cost one pass.
 */
export class JsonRowReader {
  #rows: AsyncGenerator<JsonRow> | undefined;
  #current: JsonRow | undefined;

  async read(origin: { file: string; line: number }): Promise<JsonRow> {
    if (!this.#current || this.#current.file !== origin.file || this.#current.line > origin.line) {
      this.close();
      this.#rows = jsonRows(origin.file);
      this.#current = undefined;
    }
    while (!this.#current || this.#current.line < origin.line) {
      const next = await this.#rows!.next();
      if (next.done) throw new ConfigError(`${origin.file} changed while it was read: line ${origin.line} is gone`);
      this.#current = next.value;
    }
    return this.#current;
  }

  close(): void {
    void this.#rows?.return(undefined);
  }
}

/**
 * Text written in large chunks, each waited for: a file of any size without holding it. A chunk's
 * pieces are encoded one by one into the same bytes, reused once the stream has written them. Joined
 * into one string first, every 1 MiB chunk became a flat string of its own in V8's large-object space,
 * which only a full collection frees: writing a 100,000-rollout run's 43 MB aggregate grew it by 11 MB
 * (issue 13); a new buffer for each chunk left as much again to the garbage collector.
 */
export class ChunkedWriter {
  static readonly #CHUNK = 1 << 20;
  readonly #out: Writable;
  #parts: string[] = [];
  #pending = 0;
  #bytes = Buffer.alloc(0);
  #failed: Error | undefined;

  constructor(out: Writable) {
    this.#out = out;
    // A failed write (a full disk) surfaces at the next chunk instead of crashing the process.
    out.once('error', (error) => (this.#failed = error));
  }

  async write(text: string): Promise<void> {
    this.#parts.push(text);
    this.#pending += text.length;
    if (this.#pending >= ChunkedWriter.#CHUNK) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.#failed) throw this.#failed;
    if (this.#pending === 0) return;
    const parts = this.#parts;
    this.#parts = [];
    this.#pending = 0;
    let needed = 0;
    for (const part of parts) needed += Buffer.byteLength(part);
    if (needed > this.#bytes.length) this.#bytes = Buffer.allocUnsafe(Math.max(needed, ChunkedWriter.#CHUNK));
    let length = 0;
    for (const part of parts) length += this.#bytes.write(part, length);
    await new Promise<void>((resolve, reject) => this.#out.write(this.#bytes.subarray(0, length), (error) => (error ? reject(error) : resolve())));
  }
}

/** The materialized inputs and failure sidecars that exist beside rollout files (`gymnast collect`'s names). */
export function filesBeside(rollouts: readonly string[]): { materialized: string[]; failures: string[] } {
  const beside = (kind: 'materialized' | 'failures') => rollouts.map((file) => collectPaths(file)[kind]).filter((path) => existsSync(path));
  return { materialized: beside('materialized'), failures: beside('failures') };
}

/**
 * Rollout keys with the file and line each came from, to name both places of a key that appears
 * twice: task, rollout, line and the file's number in `NumberList`s (about 8 bytes a key in a run of
 * 100,000 rollouts), no strings.
 */
export class RolloutKeyIndex {
  readonly #keys = new RolloutKeyList();
  readonly #lines = new NumberList();
  readonly #fileNumbers = new NumberList();
  readonly #files: string[] = [];

  get length(): number {
    return this.#keys.length;
  }

  /** Adds a key read at `row` and returns its position. */
  add(task: number, rollout: number, row: Pick<JsonRow, 'file' | 'line'>): number {
    let file = this.#files.lastIndexOf(row.file);
    if (file === -1) file = this.#files.push(row.file) - 1;
    this.#lines.push(row.line);
    this.#fileNumbers.push(file);
    return this.#keys.add(task, rollout);
  }

  /** Every key once, or an error naming both places of the first that is not. */
  assertUnique(what: string): void {
    const duplicate = this.#keys.duplicate();
    if (!duplicate) return;
    const [first, second] = duplicate;
    throw new ConfigError(`${what} ${this.key(first)} appears twice: ${this.where(first)} and ${this.where(second)}`);
  }

  /** The position of a key, or -1. */
  find(task: number, rollout: number): number {
    return this.#keys.find(task, rollout);
  }

  /** Positions in (task, rollout) order. */
  order(): Uint32Array {
    return this.#keys.order();
  }

  task(position: number): number {
    return this.#keys.task(position);
  }

  key(position: number): string {
    return `${this.#keys.task(position)}:${this.#keys.rollout(position)}`;
  }

  /** The file and line the key at `position` was read from. */
  origin(position: number): { file: string; line: number } {
    return { file: this.#files[this.#fileNumbers.get(position)]!, line: this.#lines.get(position) };
  }

  where(position: number): string {
    const { file, line } = this.origin(position);
    return `${file}:${line}`;
  }
}

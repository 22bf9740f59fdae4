import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { readRow } from '../core/row-reader.js';
import { readLineAt, scanLines, type ScannedLine } from './line-scanner.js';
import { RolloutColumns, RUN_FILE_KINDS, type RunFileKind } from './rollout-columns.js';
import { rolloutFacts } from './rollout-facts.js';

/** A run's files: its output file and the failure sidecar beside it (which may not exist yet). */
export interface RunFiles {
  /** Names the run in URLs: unique among the runs served. */
  id: string;
  output: string;
  failures: string;
}

/** A line that is not a row: skipped (a viewer shows what it can), counted, the first one kept to report. */
export interface SkippedLines {
  count: number;
  first: string | null;
}

/**
 * The index of one run, built by streaming its files once and then following them as a `collect`
 * appends to them: only complete lines are indexed, and `version` goes up whenever anything changes.
 * Rows are never held: a row is read again from its byte offset when asked for.
 */
export class RunIndex {
  readonly files: RunFiles;
  columns = new RolloutColumns();
  /** Bumped on every change of the indexed rollouts (new lines, or a file rewritten and indexed again). */
  version = 0;
  /** `responses_create_params.model` of the first row that names one. */
  model: string | null = null;
  skipped: SkippedLines = { count: 0, first: null };
  /** Bytes indexed and lines seen so far, by file. */
  readonly #consumed = new Map<RunFileKind, number>();
  readonly #lines = new Map<RunFileKind, number>();
  #refreshing: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;

  constructor(files: RunFiles) {
    this.files = files;
  }

  /** An index of the run's files as they are now. */
  static async build(files: RunFiles): Promise<RunIndex> {
    const index = new RunIndex(files);
    await index.refresh();
    return index;
  }

  pathOf(kind: RunFileKind): string {
    return kind === 'output' ? this.files.output : this.files.failures;
  }

  /** Indexes what was appended since the last refresh; calls queue up, so lines are never read twice. */
  refresh(): Promise<void> {
    this.#refreshing = this.#refreshing.then(() => this.#refreshFiles());
    return this.#refreshing;
  }

  /** Refreshes every `intervalMs` until `close()`; a failed refresh is retried at the next tick. */
  follow(intervalMs = 500): void {
    this.#timer ??= setInterval(() => void this.refresh().catch(() => undefined), intervalMs);
    this.#timer.unref();
  }

  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** The text of the rollout at `position`, read from its file. */
  lineOf(position: number): Promise<string> {
    const columns = this.columns;
    return readLineAt(this.pathOf(columns.fileOf(position)), columns.offset.values[position]!, columns.bytes.values[position]!);
  }

  /** `file:line` of the rollout at `position`, for errors. */
  whereOf(position: number): string {
    return `${this.pathOf(this.columns.fileOf(position))}:${this.columns.line.values[position]}`;
  }

  async #refreshFiles(): Promise<void> {
    if (await this.#shrunk()) this.#reset();
    let changed = false;
    for (const kind of RUN_FILE_KINDS) changed = (await this.#indexGrowth(kind)) || changed;
    if (changed) this.version += 1;
  }

  /** A file shorter than what was indexed was rewritten (a fresh `collect` over the same output): start over. */
  async #shrunk(): Promise<boolean> {
    for (const kind of RUN_FILE_KINDS) {
      const consumed = this.#consumed.get(kind) ?? 0;
      if (consumed > 0 && (await sizeOf(this.pathOf(kind))) < consumed) return true;
    }
    return false;
  }

  #reset(): void {
    this.columns = new RolloutColumns();
    this.#consumed.clear();
    this.#lines.clear();
    this.skipped = { count: 0, first: null };
    this.model = null;
    this.version += 1;
  }

  async #indexGrowth(kind: RunFileKind): Promise<boolean> {
    const path = this.pathOf(kind);
    const from = this.#consumed.get(kind) ?? 0;
    if ((await sizeOf(path)) <= from) return false;
    const before = this.columns.length;
    let line = this.#lines.get(kind) ?? 0;
    const consumed = await scanLines(path, from, (scanned) => this.#add(kind, scanned, (line += 1)));
    this.#lines.set(kind, line);
    this.#consumed.set(kind, consumed);
    return this.columns.length > before;
  }

  #add(kind: RunFileKind, scanned: ScannedLine, line: number): void {
    const where = `${this.pathOf(kind)}:${line}`;
    try {
      const value: unknown = JSON.parse(scanned.text);
      const read = readRow(value, where);
      if (this.model === null) this.model = modelOf(read.row.responses_create_params);
      this.columns.add(rolloutFacts(read, { file: kind, offset: scanned.offset, length: scanned.length, line }));
    } catch (error) {
      this.skipped.count += 1;
      this.skipped.first ??= error instanceof SyntaxError ? `${where}: not valid JSON (${error.message})` : (error as Error).message;
    }
  }
}

function modelOf(request: Record<string, unknown>): string | null {
  return typeof request.model === 'string' ? request.model : null;
}

async function sizeOf(path: string): Promise<number> {
  if (!existsSync(path)) return 0;
  return (await stat(path)).size;
}

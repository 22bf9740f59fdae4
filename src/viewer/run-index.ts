import { lstatSync } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { readRow } from '../core/row-reader.js';
import { healthPaths } from '../metrics/health/health-paths.js';
import { readLineAt, scanLines, type ScannedLine } from './line-scanner.js';
import { RolloutColumns, RUN_FILE_KINDS, type RunFileKind } from './rollout-columns.js';
import { indexedRollout } from './indexed-rollout.js';
import { healthFilesStamp, HealthReport, type HealthFiles } from './health-report.js';

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

/** How far the first pass over a run's files got: `done` once it read them to their end. */
export interface IndexingProgress {
  done: boolean;
  bytes_read: number;
  bytes_total: number;
}

/**
 * The index of one run, built by streaming its files once and then following them as a `collect`
 * appends to them: only complete lines are indexed, and `version` goes up whenever anything changes
 * (after every chunk read, so a big run is served while it is indexed). Rows are never held: a row is
 * read again from its byte offset when asked for. The health report beside the run is read with it.
 */
export class RunIndex {
  readonly files: RunFiles;
  columns = new RolloutColumns();
  /** Bumped on every change of the indexed rollouts (new lines, or a file rewritten and indexed again). */
  version = 0;
  /** `responses_create_params.model` of the first row that names one. */
  model: string | null = null;
  skipped: SkippedLines = { count: 0, first: null };
  /** `<stem>_health.jsonl` and `.json` as last read; null when `gymnast health` has not checked the run. */
  health: HealthReport | null = null;
  readonly indexing: IndexingProgress = { done: false, bytes_read: 0, bytes_total: 0 };
  readonly #healthFiles: HealthFiles;
  #healthStamp = '- -';
  /** Bytes indexed and lines seen so far, by file. */
  readonly #consumed = new Map<RunFileKind, number>();
  readonly #lines = new Map<RunFileKind, number>();
  #refreshing: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #ticking = false;
  /** How many rollouts the current `version` covers. */
  #published = 0;

  constructor(files: RunFiles) {
    this.files = files;
    this.#healthFiles = healthPaths(files.output);
    // Known before the first pass begins, so a page asked for at once shows progress against the real size.
    this.indexing.bytes_total = RUN_FILE_KINDS.reduce((total, kind) => total + (lstatSync(this.pathOf(kind), { throwIfNoEntry: false })?.size ?? 0), 0);
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
    // After a failed refresh too: a rejected chain would otherwise fail every later call unrun.
    const next = () => this.#refreshFiles();
    this.#refreshing = this.#refreshing.then(next, next);
    return this.#refreshing;
  }

  /** Refreshes every `intervalMs` until `close()`; a failed refresh is retried at the next tick. */
  follow(intervalMs = 500): void {
    // A tick during a long pass (the first one over a big run) is skipped rather than queued behind it.
    this.#timer ??= setInterval(() => {
      if (this.#ticking) return;
      this.#ticking = true;
      void this.refresh()
        .catch(() => undefined)
        .finally(() => (this.#ticking = false));
    }, intervalMs);
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
    // The report first: a big run's rollouts show their verdicts while the first pass goes on.
    if (await this.#refreshHealth()) this.version += 1;
    const sizes = await Promise.all(RUN_FILE_KINDS.map((kind) => sizeOf(this.pathOf(kind))));
    this.indexing.bytes_total = sizes.reduce((a, b) => a + b, 0);
    for (const kind of RUN_FILE_KINDS) await this.#indexGrowth(kind);
    this.#publish();
    this.indexing.done = true;
  }

  /** Reads the health report again when its files changed (`gymnast health` ran, or `collect` ended). */
  async #refreshHealth(): Promise<boolean> {
    const stamp = await healthFilesStamp(this.#healthFiles);
    if (stamp === this.#healthStamp) return false;
    this.health = await HealthReport.read(this.#healthFiles);
    this.#healthStamp = stamp;
    return true;
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
    this.indexing.bytes_read = 0;
    this.#published = 0;
    this.version += 1;
  }

  async #indexGrowth(kind: RunFileKind): Promise<void> {
    const path = this.pathOf(kind);
    const from = this.#consumed.get(kind) ?? 0;
    if ((await sizeOf(path)) <= from) return;
    let line = this.#lines.get(kind) ?? 0;
    const consumed = await scanLines(
      path,
      from,
      (scanned) => this.#add(kind, scanned, (line += 1)),
      (reached) => {
        this.#consume(kind, reached);
        // During the first pass, requests between chunks are served the rollouts so far.
        if (!this.indexing.done) this.#publish();
      },
    );
    this.#lines.set(kind, line);
    this.#consume(kind, consumed);
  }

  /** A new version for rollouts indexed since the last one: it drops the listers' cached orders. */
  #publish(): void {
    if (this.columns.length === this.#published) return;
    this.#published = this.columns.length;
    this.version += 1;
  }

  #consume(kind: RunFileKind, reached: number): void {
    this.indexing.bytes_read += reached - (this.#consumed.get(kind) ?? 0);
    this.#consumed.set(kind, reached);
  }

  #add(kind: RunFileKind, scanned: ScannedLine, line: number): void {
    const where = `${this.pathOf(kind)}:${line}`;
    try {
      const value: unknown = JSON.parse(scanned.text);
      const read = readRow(value, where);
      if (this.model === null) this.model = modelOf(read.row.responses_create_params);
      this.columns.add(indexedRollout(read, { file: kind, offset: scanned.offset, length: scanned.length, line }));
    } catch (error) {
      this.skipped.count += 1;
      this.skipped.first ??= error instanceof SyntaxError ? `${where}: not valid JSON (${error.message})` : (error as Error).message;
    }
  }
}

function modelOf(request: Record<string, unknown>): string | null {
  return typeof request.model === 'string' ? request.model : null;
}

/** The size at the name itself, a link's own: what it points to is never measured, and reading it is refused. */
async function sizeOf(path: string): Promise<number> {
  const found = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  return found?.size ?? 0;
}

import { open } from 'node:fs/promises';
import type { RolloutColumns } from './rollout-columns.js';
import type { RunIndex } from './run-index.js';

const MATCH = 1;
const MISS = 2;
/** Lines read at once: a few MB is one read call for thousands of rollouts. */
const BATCH_BYTES = 4 << 20;

/**
 * Text search over a run's raw lines (messages mostly: they are most of a line), case-insensitive.
 * Lines are read in file order under a time budget per call; what was scanned is remembered, so the
 * next call (the next page, or the same one asked again) goes on where the last one stopped.
 */
export class RunSearch {
  readonly query: string;
  readonly #needle: string;
  #columns: RolloutColumns | undefined;
  #state = new Uint8Array(0);
  #cursor = 0;

  constructor(query: string) {
    this.query = query;
    // Rows are JSON: a quote or newline in the text is escaped in the line, so look for the escaped form.
    this.#needle = JSON.stringify(query).slice(1, -1).toLowerCase();
  }

  /** Scans on for up to `budgetMs`; true when every indexed line has been tested. */
  async scan(index: RunIndex, budgetMs: number): Promise<boolean> {
    this.#follow(index.columns);
    const deadline = performance.now() + budgetMs;
    const columns = index.columns;
    while (this.#cursor < columns.length) {
      if (performance.now() > deadline) return false;
      await this.#scanBatch(index, columns);
    }
    return true;
  }

  /** Whether the rollout at `position` matched (false when not tested yet). */
  matches(position: number): boolean {
    return this.#state[position] === MATCH;
  }

  /** Starts over on a rebuilt index; makes room for rollouts indexed since the last scan. */
  #follow(columns: RolloutColumns): void {
    if (this.#columns !== columns) {
      this.#columns = columns;
      this.#state = new Uint8Array(columns.length);
      this.#cursor = 0;
    } else if (this.#state.length < columns.length) {
      const grown = new Uint8Array(columns.length);
      grown.set(this.#state);
      this.#state = grown;
    }
  }

  /** Tests consecutive rollouts of one file with a single read. */
  async #scanBatch(index: RunIndex, columns: RolloutColumns): Promise<void> {
    const first = this.#cursor;
    const file = columns.file.values[first];
    const start = columns.offset.values[first]!;
    let last = first;
    while (
      last + 1 < columns.length &&
      columns.file.values[last + 1] === file &&
      lineEnd(columns, last + 1) - start <= BATCH_BYTES &&
      columns.offset.values[last + 1]! > columns.offset.values[last]!
    )
      last += 1;
    const buffer = await readRange(index.pathOf(columns.fileOf(first)), start, lineEnd(columns, last) - start);
    for (let at = first; at <= last; at++) {
      const from = columns.offset.values[at]! - start;
      const text = buffer.toString('utf8', from, from + columns.bytes.values[at]!);
      this.#state[at] = text.toLowerCase().includes(this.#needle) ? MATCH : MISS;
    }
    this.#cursor = last + 1;
  }
}

const lineEnd = (columns: RolloutColumns, at: number) => columns.offset.values[at]! + columns.bytes.values[at]!;

async function readRange(path: string, offset: number, length: number): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(length);
    const { bytesRead } = await file.read(buffer, 0, length, offset);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

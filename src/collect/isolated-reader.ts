import type { OutcomeSource, RunLine, RunRowReader } from './result-files.js';

/** A reader of a run's rows that also finishes with a result, or closes without one. */
export interface FinishingReader<T> extends RunRowReader {
  finish(): Promise<T>;
  close(): Promise<void>;
}

/**
 * A reader whose first error stops it alone: the pass over the run's files goes on for the other
 * readers, and the error comes back from `finish` instead of a result. Collect reads its run once for
 * the aggregate and the health reports together; the reports failing (a full disk under them) must
 * not cost the run its aggregate.
 */
export class IsolatedReader<T> implements RunRowReader {
  readonly reader: FinishingReader<T>;
  #failed: { error: unknown } | undefined;

  constructor(reader: FinishingReader<T>) {
    this.reader = reader;
  }

  planned(line: RunLine): Promise<void> {
    return this.#guard(() => this.reader.planned(line));
  }

  outcome(line: RunLine, source: OutcomeSource): Promise<void> {
    return this.#guard(() => this.reader.outcome(line, source));
  }

  async finish(): Promise<{ result: T } | { error: unknown }> {
    if (this.#failed) {
      await this.reader.close().catch(() => {});
      return this.#failed;
    }
    return this.reader.finish().then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
  }

  async #guard(visit: () => void | Promise<void>): Promise<void> {
    if (this.#failed) return;
    try {
      await visit();
    } catch (error) {
      this.#failed = { error };
    }
  }
}

import { compactRowTokens } from '../core/compact-row-tokens.js';
import type { collectPaths } from './collect-paths.js';
import { JsonlSink } from './jsonl-sink.js';
import type { RolloutOutcome, Sink, SinkRun } from './sink.js';

/** Lines waiting for one write to a file, and the promise their writers wait on. */
interface PendingLines {
  text: string;
  written: Promise<void>;
  settle: (error?: unknown) => void;
}

/**
 * NeMo Gym's files: results appended to the output, failures to `<stem>_failures.jsonl`, never a
 * failure in the main file. Each row stores its token ids once (`compactRowTokens`). The rows of the rollouts that end in the same turn of the event loop go
 * to each file in one write (issue 13: a write per row was most of the sink's CPU), and each line
 * reaches the OS before its `write` resolves, so a crash loses at most the lines being written, which
 * `--resume` repairs. Once a write fails (a full disk), both files refuse every later write, so
 * rollouts still in flight cannot add rows after the failure.
 */
export class JsonlRolloutSink implements Sink {
  readonly #paths: Pick<ReturnType<typeof collectPaths>, 'output' | 'failures'>;
  #files: { results: JsonlSink; failures: JsonlSink } | undefined;
  #pending: { results?: PendingLines; failures?: PendingLines } = {};
  #flushScheduled = false;
  #finished = false;

  constructor(paths: Pick<ReturnType<typeof collectPaths>, 'output' | 'failures'>) {
    this.#paths = paths;
  }

  async start(run: SinkRun): Promise<void> {
    const truncate = !run.resumed;
    const results = new JsonlSink(this.#paths.output, { truncate });
    try {
      this.#files = { results, failures: new JsonlSink(this.#paths.failures, { truncate }) };
    } catch (error) {
      results.close();
      throw error;
    }
  }

  write(outcome: RolloutOutcome): Promise<void> {
    if (!this.#files) return Promise.reject(new Error(`JsonlRolloutSink.write ${this.#finished ? 'after finish' : 'before start'}`));
    // A write after a failure is refused by the flush (`#writeTo`), with the failure's own error.
    const file = outcome.kind === 'result' ? 'results' : 'failures';
    const pending = (this.#pending[file] ??= pendingLines());
    pending.text += `${JSON.stringify(compactRowTokens(outcome.row))}\n`;
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(() => this.#flush());
    }
    return pending.written;
  }

  async finish(): Promise<void> {
    this.#flush();
    const files = this.#files;
    this.#files = undefined;
    this.#finished = true;
    try {
      files?.results.close();
    } finally {
      files?.failures.close();
    }
  }

  /** Writes the waiting lines, results first: a failure row never follows a result that could not be written. */
  #flush(): void {
    this.#flushScheduled = false;
    const { results, failures } = this.#pending;
    this.#pending = {};
    if (results) this.#writeTo('results', results);
    if (failures) this.#writeTo('failures', failures);
  }

  #writeTo(file: 'results' | 'failures', pending: PendingLines): void {
    const files = this.#files;
    if (!files) {
      pending.settle(new Error('JsonlRolloutSink.write after finish'));
      return;
    }
    const failure = files.results.failure ?? files.failures.failure;
    if (failure !== undefined) {
      pending.settle(failure);
      return;
    }
    try {
      files[file].writeLines(pending.text);
      pending.settle();
    } catch (error) {
      pending.settle(error);
    }
  }
}

function pendingLines(): PendingLines {
  let settle!: (error?: unknown) => void;
  const written = new Promise<void>((resolve, reject) => {
    settle = (error) => (error === undefined ? resolve() : reject(error));
  });
  return { text: '', written, settle };
}

import type { collectPaths } from './collect-paths.js';
import { JsonlSink } from './jsonl-sink.js';
import type { RolloutOutcome, Sink, SinkRun } from './sink.js';

/**
 * NeMo Gym's files: results appended to the output, failures to `<stem>_failures.jsonl`, never a
 * failure in the main file. Each line reaches the OS before `write` returns, so a crash loses at most
 * the line being written, which `--resume` repairs. Once a write fails (a full disk), both files refuse
 * every later write, so rollouts still in flight cannot add rows after the failure.
 */
export class JsonlRolloutSink implements Sink {
  readonly #paths: Pick<ReturnType<typeof collectPaths>, 'output' | 'failures'>;
  #files: { results: JsonlSink; failures: JsonlSink } | undefined;

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

  async write(outcome: RolloutOutcome): Promise<void> {
    if (!this.#files) throw new Error('JsonlRolloutSink.write before start');
    const { results, failures } = this.#files;
    const failure = results.failure ?? failures.failure;
    if (failure !== undefined) throw failure;
    (outcome.kind === 'result' ? results : failures).write(outcome.row);
  }

  async finish(): Promise<void> {
    const files = this.#files;
    this.#files = undefined;
    try {
      files?.results.close();
    } finally {
      files?.failures.close();
    }
  }
}

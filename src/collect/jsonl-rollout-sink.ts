import type { collectPaths } from './collect-paths.js';
import { JsonlSink } from './jsonl-sink.js';
import type { RolloutOutcome, Sink, SinkRun } from './sink.js';

/**
 * NeMo Gym's files: results appended to the output, failures to `<stem>_failures.jsonl`, never a
 * failure in the main file. Each line reaches the OS before `write` returns, so a crash loses at most
 * the line being written, which `--resume` repairs.
 */
export class JsonlRolloutSink implements Sink {
  readonly #paths: Pick<ReturnType<typeof collectPaths>, 'output' | 'failures'>;
  #files: { results: JsonlSink; failures: JsonlSink } | undefined;

  constructor(paths: Pick<ReturnType<typeof collectPaths>, 'output' | 'failures'>) {
    this.#paths = paths;
  }

  async start(run: SinkRun): Promise<void> {
    const truncate = !run.resumed;
    this.#files = { results: new JsonlSink(this.#paths.output, { truncate }), failures: new JsonlSink(this.#paths.failures, { truncate }) };
  }

  async write(outcome: RolloutOutcome): Promise<void> {
    if (!this.#files) throw new Error('JsonlRolloutSink.write before start');
    (outcome.kind === 'result' ? this.#files.results : this.#files.failures).write(outcome.row);
  }

  async finish(): Promise<void> {
    this.#files?.results.close();
    this.#files?.failures.close();
    this.#files = undefined;
  }
}

import type { ResultRow } from '../core/result-row.js';
import { isZeroTurnRow } from '../core/zero-turn-row.js';
import type { EventFileWriter } from '../tensorboard/event-file-writer.js';
import type { RolloutOutcome, Sink, SinkRun } from './sink.js';

/** Points a run's charts get at most, besides its last: one per hundredth of the plan. */
const POINTS = 100;

/**
 * A collection's progress as TensorBoard scalars, reduced from the outcomes as they end (the loop keeps
 * no counters for it): at every hundredth of the plan and at the end, at step = planned rollouts ended,
 * `collect/rollouts_done`, `collect/completion_rate` (a fraction), and over this run's rollouts
 * `collect/mean_reward` (of the scored ones), `collect/failures` and `collect/tokens_per_second`
 * (generated tokens, by wall time since the run started). A resumed run's steps go on from the
 * rollouts ended before it. `finish` leaves the file open: the aggregate is read after the sinks finish,
 * and `close` writes it.
 */
export class TensorBoardSink implements Sink {
  private readonly tally = new OutcomeTally();
  private planned = 0;
  private ended = 0;
  private every = 1;
  private started = 0;
  private lastWritten = -1;

  constructor(
    private readonly writer: EventFileWriter,
    private readonly now: () => number = Date.now,
  ) {}

  /** The step of the last scalars written: where a caller puts the run's final metrics. */
  get step(): number {
    return this.ended + this.tally.outcomes;
  }

  async start(run: SinkRun): Promise<void> {
    this.planned = run.plannedRollouts;
    this.ended = run.ended ?? 0;
    this.every = Math.max(1, Math.ceil((this.planned - this.ended) / POINTS));
    this.started = this.now();
  }

  async write(outcome: RolloutOutcome): Promise<void> {
    this.tally.add(outcome);
    if (this.tally.outcomes % this.every === 0 || this.step === this.planned) this.writeScalars();
  }

  async finish(): Promise<void> {
    if (this.tally.outcomes > 0 && this.lastWritten !== this.step) this.writeScalars();
    await this.writer.flush();
  }

  /** Writes `final` (the run's aggregate) at the last step, then closes the event file; also after a failed run, without `final`. */
  async close(final?: ReadonlyMap<string, number>): Promise<void> {
    if (final) this.writer.write(this.step, final);
    await this.writer.close();
  }

  private writeScalars(): void {
    this.lastWritten = this.step;
    const seconds = Math.max((this.now() - this.started) / 1000, 1e-3);
    this.writer.write(this.step, this.tally.scalars({ step: this.step, planned: this.planned, seconds }));
  }
}

/** This run's outcomes, counted: what the progress scalars are computed from. */
class OutcomeTally {
  outcomes = 0;
  private failures = 0;
  private scored = 0;
  private rewardSum = 0;
  private generatedTokens = 0;

  add(outcome: RolloutOutcome): void {
    this.outcomes += 1;
    if (outcome.kind === 'failure') {
      this.failures += 1;
      return;
    }
    this.generatedTokens += generatedTokens(outcome.row);
    // A prompt too long for the sequence ran no turn and was never scored: its reward of 0 means nothing.
    if (isZeroTurnRow(outcome.row)) return;
    this.scored += 1;
    this.rewardSum += outcome.row.reward;
  }

  scalars(at: { step: number; planned: number; seconds: number }): Map<string, number> {
    const scalars = new Map<string, number>([
      ['collect/rollouts_done', at.step],
      ['collect/completion_rate', at.planned === 0 ? 1 : at.step / at.planned],
      ['collect/failures', this.failures],
      ['collect/tokens_per_second', this.generatedTokens / at.seconds],
    ]);
    if (this.scored > 0) scalars.set('collect/mean_reward', this.rewardSum / this.scored);
    return scalars;
  }
}

/** The tokens the model generated for a row, as its response's usage says (an agent server's too); 0 when it says nothing. */
function generatedTokens(row: ResultRow): number {
  const tokens = row.response.usage?.output_tokens;
  return typeof tokens === 'number' && Number.isFinite(tokens) ? tokens : 0;
}

import type { SuccessfulTermination } from '../core/termination.js';
import type { StepResult } from '../core/step-result.js';
import type { EpisodeOptions } from './episode-options.js';
import type { Generation } from './generation.js';

/** The loop's decision to stop, with the reason the rollout records. */
export interface EpisodeEnd {
  type: 'end';
  termination: SuccessfulTermination;
}

/** The loop's decision at every exit point: go on, or end with a reason. Failures are thrown, never decided. */
export type NextStep = { type: 'continue' } | EpisodeEnd;

export const continueEpisode: NextStep = { type: 'continue' };

export const endWith = (kind: SuccessfulTermination['kind'], detail?: string): EpisodeEnd => ({
  type: 'end',
  termination: detail === undefined ? { kind } : { kind, detail },
});

/**
 * Decides what follows a scored turn. Order matters and is the same in every schedule: the
 * environment's own end wins (its reward is final), then the sequence limit, then how the
 * generation ended (`max_tokens`, or a reason the server gave that we do not know), then the turn limit.
 */
export function decideNextStep(step: StepResult, generation: Generation, turn: number, options: EpisodeOptions): NextStep {
  if (step.terminated) return endWith('env-done');
  if (step.truncated) return endWith('env-done', 'the environment truncated the episode');
  return limitEnd(generation, turn, options) ?? continueEpisode;
}

/** The end a limit or the generation itself puts on the episode after this turn, whatever the environment says. */
export function limitEnd(generation: Generation, turn: number, options: EpisodeOptions): EpisodeEnd | undefined {
  const finish = generation.result.finish_reason;
  if (generation.filledSequence) return endWith('max-seq-len', 'the generation filled the rest of max_seq_len');
  if (finish.unified === 'length' && options.onMaxTokens === 'end') {
    return endWith('max-tokens', `a generation reached max_tokens (${generation.result.token_ids.length} tokens)`);
  }
  if (finish.unified === 'other')
    return endWith('finish-other', `the server ended the generation with finish reason ${JSON.stringify(finish.raw ?? 'unknown')}`);
  if (turn + 1 >= options.maxTurns) return endWith('max-turns', `still active after ${options.maxTurns} turns`);
  return undefined;
}

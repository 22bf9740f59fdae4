import type { Termination } from '../core/termination.js';
import type { StepResult } from '../environments/environment.js';
import type { EpisodeOptions } from './episode-options.js';
import type { Generation } from './generate-turn.js';

/** The loop's decision after a turn: go on, or end with a reason. */
export type NextStep = { type: 'continue' } | { type: 'end'; termination: Termination };

export const endWith = (kind: Termination['kind'], detail?: string): NextStep => ({
  type: 'end',
  termination: detail === undefined ? { kind } : { kind, detail },
});

/**
 * Decides what follows a scored turn. Order matters and is the same in every schedule: the
 * environment's own end wins (its reward is final), then the sequence limit, then `max_tokens`,
 * then the turn limit.
 */
export function decideNextStep(step: StepResult, generation: Generation, turn: number, options: EpisodeOptions): NextStep {
  if (step.terminated) return endWith('env-done');
  if (step.truncated) return endWith('env-done', 'the environment truncated the episode');
  if (generation.filledSequence) return endWith('max-seq-len', 'the generation filled the rest of max_seq_len');
  if (generation.result.finish_reason.unified === 'length' && (options.onMaxTokens ?? 'end') === 'end') {
    return endWith('max-tokens', `a generation reached max_tokens (${generation.result.token_ids.length} tokens)`);
  }
  if (turn + 1 >= options.maxTurns) return endWith('max-turns', `still active after ${options.maxTurns} turns`);
  return { type: 'continue' };
}

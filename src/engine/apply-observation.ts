import { EnvironmentError } from '../core/errors/environment-error.js';
import type { TokenDrift } from '../tokens/conversation-renderer.js';
import type { StepResult } from '../environments/environment.js';
import type { EpisodeOptions } from './episode-options.js';
import { appendMessages, type EpisodeState } from './episode-state.js';
import { fitToBudget } from './fit-to-budget.js';
import { endWith, type NextStep } from './next-step.js';
import { extensibleCopy } from '../util/extensible-copy.js';

export interface AppliedObservation {
  envTokens: number;
  truncated: boolean;
  drift?: TokenDrift;
  /** The decision, turned into `max-seq-len` when the observation leaves no room to generate. */
  next: NextStep;
}

/**
 * Renders the observation as a delta on the sequence and cuts it to fill `max_seq_len` exactly.
 * The observation is kept even on the last turn (NeMo RL appends "Environment: correct" too).
 */
export function applyObservation(state: EpisodeState, step: StepResult, next: NextStep, options: EpisodeOptions): AppliedObservation {
  const continuing = next.type === 'continue';
  if (continuing && step.observation.length === 0) {
    throw new EnvironmentError(options.environment.name, 'a step that does not end the episode must return an observation');
  }
  const tools = state.task.tools;
  const { tokenIds, drift } = options.renderer.renderDelta(state.ledger, state.messages, step.observation, {
    addGenerationPrompt: continuing,
    ...(tools ? { tools } : {}),
  });
  const fitted = fitToBudget(step.observation, tokenIds, options.maxSeqLen - state.ledger.length);
  appendMessages(state, fitted.messages);
  const noRoom = continuing && state.ledger.length >= options.maxSeqLen;
  // One literal: a spread copy with `next` added made a hidden class per turn (see extensibleCopy).
  return { envTokens: fitted.tokenCount, truncated: fitted.truncated, ...(drift ? { drift } : {}), next: noRoom ? noRoomLeft(fitted.truncated) : next };
}

function noRoomLeft(observationCut: boolean): NextStep {
  return endWith('max-seq-len', observationCut ? 'the observation was cut to fit max_seq_len' : 'no room left under max_seq_len to generate');
}

/** Carries the environment's state, reported fields and next stop strings forward (null metadata keeps the old one). */
export function carryForward(state: EpisodeState, step: StepResult): void {
  if (step.metadata !== undefined && step.metadata !== null) state.metadata = step.metadata;
  if (step.fields) state.fields = extensibleCopy(state.fields, step.fields);
  if (step.next_stop_strings !== undefined) state.stopStrings = step.next_stop_strings ?? [];
}

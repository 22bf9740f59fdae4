import { EnvironmentError } from '../core/errors/environment-error.js';
import type { TokenDrift } from '../tokens/conversation-renderer.js';
import type { StepResult } from '../core/step-result.js';
import type { EpisodeOptions } from './episode-options.js';
import { appendMessages, type EpisodeState } from './episode-state.js';
import { fitToBudget } from './fit-to-budget.js';
import { endWith, type NextStep } from './next-step.js';
import { extensibleCopy } from '../util/extensible-copy.js';

export interface AppliedObservation {
  envTokens: number;
  truncated: boolean;
  /** The sequence reached `max_seq_len` with this observation (NeMo RL's truncation check). */
  maxSeqLenReached: boolean;
  drift?: TokenDrift;
  /** The decision, turned into `max-seq-len` when the observation leaves no room to generate. */
  next: NextStep;
}

/**
 * Turns the observation into tokens on the sequence and cuts them to fill `max_seq_len` exactly.
 * The observation is kept even on the last turn (NeMo RL appends "Environment: correct" too).
 */
export function applyObservation(state: EpisodeState, step: StepResult, next: NextStep, options: EpisodeOptions): AppliedObservation {
  const continuing = next.type === 'continue';
  if (continuing && step.observation.length === 0) {
    throw new EnvironmentError(options.environment.name, 'a step that does not end the episode must return an observation');
  }
  const { tokenIds, drift } = observationTokens(state, step, continuing, options);
  const fitted = fitToBudget(step.observation, tokenIds, options.maxSeqLen - state.ledger.length);
  appendMessages(state, fitted.messages);
  const full = state.ledger.length >= options.maxSeqLen;
  const noRoom = continuing && full;
  // One literal: a spread copy with `next` added made a hidden class per turn (see extensibleCopy).
  return {
    envTokens: fitted.tokenCount,
    truncated: fitted.truncated,
    maxSeqLenReached: full,
    ...(drift ? { drift } : {}),
    next: noRoom ? noRoomLeft(fitted.truncated) : next,
  };
}

/**
 * The observation's tokens as its environment asks (`Environment.observationTokens`): rendered by the
 * chat template as a delta on the sequence, or each message's content encoded as it is (NeMo RL's
 * `tokenizer(content, add_special_tokens=False)`), with no template and no generation prompt around it.
 */
function observationTokens(state: EpisodeState, step: StepResult, continuing: boolean, options: EpisodeOptions): { tokenIds: number[][]; drift?: TokenDrift } {
  if (options.environment.observationTokens === 'raw')
    return { tokenIds: step.observation.map((message) => options.renderer.tokenizer.encode(message.content)) };
  const tools = state.task.tools;
  return options.renderer.renderDelta(state.ledger, state.messages, step.observation, {
    addGenerationPrompt: continuing,
    ...(tools ? { tools } : {}),
  });
}

function noRoomLeft(observationCut: boolean): NextStep {
  return endWith('max-seq-len', observationCut ? 'the observation was cut to fit max_seq_len' : 'no room left under max_seq_len to generate');
}

/**
 * Carries the environment's state, reported fields and next stop strings forward (null metadata keeps
 * the old one). As NeMo RL's loops do, a step that ends the episode (`ended`: the environment said so,
 * or the sequence reached `max_seq_len`) passes nothing on: its metadata is kept apart, as the
 * episode's terminal metadata, and the state stays the one that step was given. Reported fields always merge.
 */
export function carryForward(state: EpisodeState, step: StepResult, ended: boolean): void {
  if (step.fields) state.fields = extensibleCopy(state.fields ?? {}, step.fields);
  const metadata = step.metadata ?? undefined;
  if (ended) {
    if (metadata !== undefined) state.terminalMetadata = metadata;
    return;
  }
  if (metadata !== undefined) state.metadata = metadata;
  if (step.next_stop_strings !== undefined) state.stopStrings = step.next_stop_strings ?? [];
}

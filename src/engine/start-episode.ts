import type { EpisodeOptions } from './episode-options.js';
import { appendMessages, type EpisodeState } from './episode-state.js';
import { fitToBudget } from './fit-to-budget.js';
import { continueEpisode, endWith, type NextStep } from './next-step.js';
import { asEnvironmentError, typedErrors } from './wrap-error.js';

/**
 * Resets the environment and renders the opening messages. Ends the episode as `prompt-too-long` when
 * the prompt leaves no room to generate (with zero turns, its prompt cut to `max_seq_len`): the model
 * is never called and the environment never scores it.
 */
export async function startEpisode(state: EpisodeState, options: EpisodeOptions, signal: AbortSignal): Promise<NextStep> {
  const { environment } = options;
  const reset = await typedErrors(signal, asEnvironmentError(environment.name, 'reset'), () => environment.reset(state.task.data, signal));
  state.metadata = reset.metadata;
  if (reset.stop_strings) state.stopStrings = reset.stop_strings;

  const opening = [...state.task.messages, ...(reset.observation ?? [])];
  const tools = state.task.tools;
  const { tokenIds } = options.renderer.renderDelta(state.ledger, [], opening, { addGenerationPrompt: true, ...(tools ? { tools } : {}) });
  const fitted = fitToBudget(opening, tokenIds, options.maxSeqLen);
  appendMessages(state, fitted.messages);
  if (state.ledger.length < options.maxSeqLen) return continueEpisode;
  const promptTokens = tokenIds.reduce((total, ids) => total + ids.length, 0);
  return endWith('prompt-too-long', `the prompt is ${promptTokens} tokens, leaving no room under max_seq_len ${options.maxSeqLen}`);
}

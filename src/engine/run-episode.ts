import type { EpisodeTask } from '../core/episode-task.js';
import type { EpisodeRecord } from '../core/rollout-record.js';
import { systemClock } from '../util/clock.js';
import { deadlineSignal } from '../util/deadline-signal.js';
import { applyObservation, carryForward } from './apply-observation.js';
import type { EpisodeOptions } from './episode-options.js';
import { createEpisodeState } from './episode-state.js';
import { failureRecord, rolloutRecord } from './episode-records.js';
import { generateTurn } from './generate-turn.js';
import { decideNextStep } from './next-step.js';
import { startEpisode } from './start-episode.js';
import { stepEnvironment } from './step-environment.js';

/** How a schedule drives an episode; the loop itself is the same in every schedule. */
export interface EpisodeControl {
  signal?: AbortSignal;
  /** Awaited before every turn: the lockstep schedule's barrier, nothing in the async schedule. */
  pace?: () => Promise<void>;
}

/**
 * Runs one episode to its end and returns its record. Never throws for a policy, environment or
 * abort failure: those end the episode as a failure record, and other episodes are unaffected.
 */
export async function runEpisode(
  task: EpisodeTask,
  rolloutIndex: number,
  options: EpisodeOptions,
  control: EpisodeControl = {},
): Promise<EpisodeRecord> {
  const clock = options.clock ?? systemClock;
  const emit = options.onEvent ?? (() => {});
  const deadline = deadlineSignal(control.signal, options.episodeTimeoutMs);
  const { signal } = deadline;
  const state = createEpisodeState(task, rolloutIndex, options.sampling, options.renderer.tokenizer, clock.now());
  emit({ type: 'episode-start', ...state.key });

  let record: EpisodeRecord;
  try {
    let ended = await startEpisode(state, options, signal);
    for (let turn = 0; ended === undefined; turn++) {
      await control.pace?.();
      signal.throwIfAborted();
      emit({ type: 'turn-start', ...state.key, turn });
      const generation = await generateTurn(state, options, turn, signal);
      if (generation.type === 'overlong') {
        ended = generation.termination;
        break;
      }
      const step = await stepEnvironment(state, options, signal);
      const observation = applyObservation(state, step.result, decideNextStep(step.result, generation, turn, options), options);
      state.turns.push({
        index: turn,
        prompt_tokens: generation.promptTokens,
        generated_tokens: generation.result.token_ids.length,
        env_tokens: observation.envTokens,
        finish_reason: generation.result.finish_reason,
        ...(generation.result.logprobs_mode ? { logprobs_mode: generation.result.logprobs_mode } : {}),
        reward: step.result.reward,
        ...(step.result.reward_components ? { reward_components: step.result.reward_components } : {}),
        ...(step.result.answer !== undefined ? { answer: step.result.answer } : {}),
        env_terminated: step.result.terminated,
        env_truncated: step.result.truncated,
        observation_truncated: observation.truncated,
        ...(generation.drift || observation.drift ? { token_drift: generation.drift ?? observation.drift } : {}),
        timing: { generation_ms: generation.ms, env_ms: step.ms },
      });
      emit({ type: 'turn-end', ...state.key, turn: state.turns[turn]! });
      carryForward(state, step.result);
      if (observation.next.type === 'end') ended = observation.next.termination;
    }
    record = rolloutRecord(state, ended, clock.now());
  } catch (error) {
    record = failureRecord(state, error, signal, clock.now());
  } finally {
    deadline.dispose();
  }
  emit({ type: 'episode-end', ...state.key, record });
  return record;
}

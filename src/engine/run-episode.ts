import type { EpisodeTask } from '../core/episode-task.js';
import type { EpisodeRecord } from '../core/rollout-record.js';
import { systemClock } from '../util/clock.js';
import { deadlineSignal } from '../util/deadline-signal.js';
import { applyObservation, carryForward } from './apply-observation.js';
import type { EpisodeOptions } from './episode-options.js';
import { createEpisodeState, type EpisodeState } from './episode-state.js';
import { failureRecord, rolloutRecord, turnRecord } from './episode-records.js';
import { generateTurn } from './generate-turn.js';
import { decideNextStep, type NextStep } from './next-step.js';
import type { Generation } from './generation.js';
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
 *
 * start → per turn: pace, generate, step, decide, observe → record. Every step that may end the
 * episode returns a `NextStep`; failures are thrown as typed errors and classified once, here.
 */
export async function runEpisode(task: EpisodeTask, rolloutIndex: number, options: EpisodeOptions, control: EpisodeControl = {}): Promise<EpisodeRecord> {
  const clock = options.clock ?? systemClock;
  // Events are built only for a listener: `?.` skips the arguments when there is none.
  const emit = options.onEvent;
  const deadline = deadlineSignal(control.signal, options.episodeTimeoutMs);
  const { signal } = deadline;
  const state = createEpisodeState(task, rolloutIndex, options.sampling, options.renderer.tokenizer, clock);
  emit?.({ type: 'episode-start', ...state.key });

  let record: EpisodeRecord;
  try {
    let next = await startEpisode(state, options, signal);
    for (let turn = 0; next.type === 'continue'; turn++) {
      await control.pace?.();
      signal.throwIfAborted();
      emit?.({ type: 'turn-start', ...state.key, turn });
      next = await playTurn(state, options, turn, signal);
    }
    record = rolloutRecord(state, next.termination, clock.now(), recordedMetadata(options));
  } catch (error) {
    record = failureRecord(state, error, signal, clock.now(), recordedMetadata(options));
  } finally {
    deadline.dispose();
    options.policy.endSession?.(state.sessionId);
  }
  await releaseEnvironment(options, state);
  emit?.({ type: 'episode-end', ...state.key, record });
  return record;
}

/**
 * One turn: generate, then step, decide and observe. Not in `runEpisode`'s own body: a suspended async
 * function keeps its locals' last values, so the loop would hold the last turn's generation and step
 * while the next turn waits on the policy, most of an episode's life (issue 26).
 */
function playTurn(state: EpisodeState, options: EpisodeOptions, turn: number, signal: AbortSignal): Promise<NextStep> {
  return generateTurn(state, options, turn, signal).then((generation) =>
    generation.type === 'end' ? generation : completeTurn(state, options, generation, turn, signal),
  );
}

async function completeTurn(state: EpisodeState, options: EpisodeOptions, generation: Generation, turn: number, signal: AbortSignal): Promise<NextStep> {
  const step = await stepEnvironment(state, options, generation, turn, signal);
  const observation = applyObservation(state, step.result, decideNextStep(step.result, generation, turn, options), options);
  const turnEnded = turnRecord(turn, generation, step, observation);
  // A new array, exactly as long (`concat`: one grown by `push` from empty, or spread with one more, has room for 17 or more; ~130 bytes per episode in flight, issue 26).
  state.turns = state.turns.concat([turnEnded]);
  options.onEvent?.({ type: 'turn-end', ...state.key, turn: turnEnded });
  carryForward(state, step.result, step.result.terminated || step.result.truncated || observation.maxSeqLenReached);
  return observation.next;
}

/** How long an environment may take to free an episode's resources once it is over. */
const RELEASE_TIMEOUT_MS = 10_000;

/**
 * Lets the environment free what a started episode holds (one whose reset never answered holds nothing),
 * given its latest state: the terminal step's when it returned one (it may say the session is closed).
 * Its failure or slowness never changes the record.
 */
async function releaseEnvironment({ environment }: EpisodeOptions, state: EpisodeState): Promise<void> {
  if (!environment.release || state.metadata === undefined) return;
  const metadata = state.terminalMetadata ?? state.metadata;
  await environment.release({ metadata, data: state.task.data }, AbortSignal.timeout(RELEASE_TIMEOUT_MS)).catch(() => {});
}

/** The environment's choice of what its metadata puts on the record; all of it by default. */
function recordedMetadata({ environment }: EpisodeOptions): (metadata: unknown) => unknown {
  return (metadata) => (environment.recordedMetadata ? environment.recordedMetadata(metadata) : metadata);
}

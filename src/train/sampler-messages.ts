import type { EpisodeTask } from '../core/episode-task.js';
import type { SamplingParams } from '../core/sampling-params.js';
import type { EpisodeGroup } from '../engine/run-groups.js';
import type { GptConfig } from '../policy/embedded/gpt-config.js';
import type { RolloutGroup } from './grpo-trainer.js';
import type { InFlight } from './rollout-sampler.js';

/** What one training step collects: its tasks (each gets `groupSize` rollouts) and its sampling. */
export interface StepCollection {
  /** The trainer's step (1-based) that learns from these groups. */
  step: number;
  tasks: EpisodeTask[];
  sampling: SamplingParams;
}

/**
 * The trainer → sampler process messages, sent over the child process's IPC channel ('advanced'
 * serialization: Float32Arrays go as they are). `start` comes first and once.
 */
export type ToSampler =
  | {
      type: 'start';
      config: GptConfig;
      params: Float32Array;
      groupSize: number;
      maxStaleness: number;
      inFlight: InFlight;
      klInLoss: boolean;
      schedule: StepCollection[];
    }
  /** The trainer's weights after its step `version`; `sentAt` is epoch milliseconds (performance.timeOrigin + now). */
  | { type: 'weights'; version: number; params: Float32Array; sentAt: number }
  | { type: 'stop' };

/** The sampler process → trainer messages. */
export type FromSampler =
  /**
   * A step's groups, with their records' logprobs under the starting weights (`referenceSeconds` went
   * into computing those); `cpuSeconds` is the CPU time the sampler process has used so far.
   */
  | { type: 'batch'; step: number; groups: (EpisodeGroup & RolloutGroup)[]; seconds: number; referenceSeconds: number; groupsRerun: number; cpuSeconds: number }
  /** New weights are in: `transferSeconds` from the trainer's send to their arrival, `applySeconds` from there to sampling with them. */
  | { type: 'weights-applied'; version: number; transferSeconds: number; applySeconds: number }
  | { type: 'error'; message: string };

/** The wall clock in milliseconds, comparable between the processes of one machine. */
export function epochMs(): number {
  return performance.timeOrigin + performance.now();
}

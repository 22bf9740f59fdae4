import type { EpisodeGroup } from '../engine/run-groups.js';
import { runGroups } from '../engine/run-groups.js';
import type { EpisodeOptions } from '../engine/episode-options.js';
import type { SamplingParams } from '../core/sampling-params.js';
import type { RolloutGroup } from './grpo-trainer.js';
import type { StepCollection } from './sampler-messages.js';

/** The groups a training step learns from, and where the time went getting them. */
export interface StepBatch {
  groups: (EpisodeGroup & RolloutGroup)[];
  /** Seconds the collection took (in the sampler process, while the trainer did something else, when asynchronous). */
  collectSeconds: number;
  /** Seconds the trainer waited for the batch: all of the collection when synchronous, what overlap did not hide when asynchronous. */
  waitSeconds: number;
  groupsRerun: number;
  /** Seconds the sampler process spent on the records' logprobs under the starting weights, which the trainer then skips (asynchronous only). */
  referenceSeconds?: number;
  /** CPU seconds the sampler process has used so far (asynchronous only). */
  samplerCpuSeconds?: number;
  /** How the last weights the sampler got reached it (asynchronous only): see `FromSampler`'s `weights-applied`. */
  weights?: { version: number; transferSeconds: number; applySeconds: number };
}

/** Where a training run gets each step's groups, and where it hands the weights after each step. */
export interface BatchSource {
  next(collection: StepCollection): Promise<StepBatch>;
  /** The trainer's weights after its step `version`. */
  publish(params: Float32Array, version: number): void;
  close(): Promise<void>;
}

/**
 * Synchronous collection in the trainer's process: each step's groups are collected when the step
 * asks, with the weights the trainer put in the policy after the step before.
 */
export function inProcessBatches(episode: (sampling: SamplingParams) => EpisodeOptions, groupSize: number, signal?: AbortSignal): BatchSource {
  return {
    async next(collection) {
      const started = performance.now();
      const groups: EpisodeGroup[] = [];
      for await (const group of runGroups(collection.tasks, episode(collection.sampling), { groupSize, ...(signal === undefined ? {} : { signal }) }))
        groups.push(group);
      const seconds = (performance.now() - started) / 1000;
      return { groups, collectSeconds: seconds, waitSeconds: seconds, groupsRerun: 0 };
    },
    // The trainer's run puts the weights in its policy, which is this collection's.
    publish() {},
    async close() {},
  };
}

import { z } from 'zod';
import type { EpisodeTask } from '../core/episode-task.js';
import { AbortedError } from '../core/errors/aborted-error.js';
import { ConfigError } from '../core/errors/config-error.js';
import type { EpisodeRecord } from '../core/rollout-record.js';
import type { SamplingParams } from '../core/sampling-params.js';
import type { EpisodeOptions } from '../engine/episode-options.js';
import { type EpisodeGroup, runGroups } from '../engine/run-groups.js';
import type { EmbeddedPolicy } from '../policy/embedded/embedded-policy.js';

/**
 * What happens to the rollouts in flight when new weights arrive mid-collection. `finish`: the
 * generations decoding end on the old weights, then the new ones go in, so a rollout's later turns may
 * be sampled by the new version (each turn's `policy_version` says which). `rerun`: the groups still
 * in flight are cut and collected again on the new weights, so no kept rollout mixes versions.
 */
export const InFlight = z.enum(['finish', 'rerun']);
export type InFlight = z.infer<typeof InFlight>;

/** A new version waits at most this long for the generations decoding to end (a generation is at most `max_tokens` decoding steps). */
const UPDATE_DEADLINE_MS = 120_000;

export interface SampledBatch {
  groups: EpisodeGroup[];
  /** Groups whose collection new weights cut (`rerun`) and that were collected again, those not started yet included. */
  groupsRerun: number;
  seconds: number;
}

/**
 * Collects groups of rollouts with an embedded policy whose weights may change while it does: the
 * sampling side of asynchronous training, the trainer being elsewhere (another process).
 */
export class RolloutSampler {
  readonly policy: EmbeddedPolicy;
  readonly inFlight: InFlight;
  readonly #episode: (sampling: SamplingParams) => EpisodeOptions;
  /** Cuts the collection running now (`rerun`). */
  #cut: AbortController | undefined;

  constructor(policy: EmbeddedPolicy, episode: (sampling: SamplingParams) => EpisodeOptions, inFlight: InFlight) {
    this.policy = policy;
    this.#episode = episode;
    this.inFlight = inFlight;
  }

  /** `groupSize` rollouts of each task, every group whole on the weights the in-flight setting allows. */
  async collect(tasks: readonly EpisodeTask[], sampling: SamplingParams, groupSize: number, signal?: AbortSignal): Promise<SampledBatch> {
    const started = performance.now();
    const groups: EpisodeGroup[] = [];
    let pending = [...tasks];
    let groupsRerun = 0;
    while (pending.length > 0) {
      const cut = new AbortController();
      this.#cut = cut;
      const kept = new Set<EpisodeTask>();
      const stop = signal === undefined ? cut.signal : AbortSignal.any([signal, cut.signal]);
      for await (const group of runGroups(pending, this.#episode(sampling), { groupSize, signal: stop })) {
        if (cut.signal.aborted && group.records.some(wasCut)) continue;
        groups.push(group);
        kept.add(group.task);
      }
      signal?.throwIfAborted();
      pending = pending.filter((task) => !kept.has(task));
      groupsRerun += pending.length;
    }
    this.#cut = undefined;
    return { groups, groupsRerun, seconds: (performance.now() - started) / 1000 };
  }

  /**
   * Puts in new weights (the policy's version goes up by one): after the generations decoding end
   * (`finish`), or at once, cutting the collection in flight to run again on them (`rerun`).
   */
  async updateWeights(params: Float32Array): Promise<void> {
    if (this.inFlight === 'rerun') this.#cut?.abort(new AbortedError('new weights arrived: the groups in flight are collected again'));
    const update = await this.policy.updateWeightsWhenIdle(params, UPDATE_DEADLINE_MS);
    if (!update.updated) throw new ConfigError(`new weights waited ${UPDATE_DEADLINE_MS / 1000} s for ${update.decoding} generations still decoding`);
  }
}

function wasCut(record: EpisodeRecord): boolean {
  return record.record_type === 'failure' && record.termination.kind === 'aborted';
}

import type { RolloutGroup } from './grpo-trainer.js';

/**
 * The oldest weights a trainer at `version` (the steps it has taken) may learn from, with at most
 * `maxStaleness` updates between the sampler's weights and its own (AReaL's bounded staleness). The
 * sampler starts a step's collection only when its weights are at least this new (`mayStartCollecting`),
 * and the trainer drops any group with an older turn (`keepFresh`): both read this one bound.
 */
export function oldestAllowedVersion(version: number, maxStaleness: number): number {
  return version - maxStaleness;
}

/** Whether a sampler with weights `samplerVersion` may start collecting what the trainer's step `step` (1-based) will learn from. */
export function mayStartCollecting(step: number, samplerVersion: number, maxStaleness: number): boolean {
  // Step `step` is taken by the trainer at version `step − 1`; versions only go up while a rollout runs.
  return samplerVersion >= oldestAllowedVersion(step - 1, maxStaleness);
}

/** The groups a step keeps, what it dropped, and the versions of the turns it kept. */
export interface FreshGroups {
  groups: RolloutGroup[];
  /** Groups with a turn older than the bound (or with no version to prove otherwise): not trained on. */
  dropped: number;
  /** Turns kept, by the policy version that sampled them. */
  versions: Record<string, number>;
  /** Turns kept, by staleness: the trainer's version minus the turn's. */
  staleness: Record<string, number>;
  /** Rollouts kept whose turns were sampled by more than one version (an update landed between their turns). */
  mixedVersions: number;
}

/**
 * Keeps the groups every turn of which was sampled at most `maxStaleness` versions before `version`.
 * A turn without a `policy_version` cannot be shown fresh, so its group is dropped too. Dropped
 * groups are counted, not re-collected: the sampler's admission (`mayStartCollecting`) already keeps
 * them from happening, and re-collecting would stall the trainer for a whole collection.
 */
export function keepFresh(groups: readonly RolloutGroup[], version: number, maxStaleness: number): FreshGroups {
  const oldest = oldestAllowedVersion(version, maxStaleness);
  const fresh = groups.filter((group) => group.records.every((record) => record.turns.every((turn) => (turn.policy_version ?? -1) >= oldest)));
  const versions: Record<string, number> = {};
  const staleness: Record<string, number> = {};
  let mixedVersions = 0;
  for (const record of fresh.flatMap((group) => group.records)) {
    const seen = new Set<number>();
    for (const turn of record.turns) {
      const turnVersion = turn.policy_version!;
      seen.add(turnVersion);
      versions[turnVersion] = (versions[turnVersion] ?? 0) + 1;
      staleness[version - turnVersion] = (staleness[version - turnVersion] ?? 0) + 1;
    }
    if (seen.size > 1) mixedVersions += 1;
  }
  return { groups: fresh, dropped: groups.length - fresh.length, versions, staleness, mixedVersions };
}

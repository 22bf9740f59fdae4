import { ConfigError } from '../core/errors/config-error.js';
import { AggregateReader } from './aggregate-reader.js';
import { readRunFiles } from './result-files.js';
import { RewardProfile } from './reward-profile.js';

export interface ProfileSources {
  materialized: string;
  rollouts: string;
  /** Profile even when planned rollouts have no result (NeMo Gym's `allow_partial_rollouts`). */
  allowPartial?: boolean;
}

/**
 * NeMo Gym's reward profile (`gym eval profile`): results aligned with the materialized inputs by
 * (task, rollout). A key planned twice, a result without a planned row, or a key with two results is
 * an error naming file:line; planned rollouts without a result are an error unless `allowPartial`.
 */
export async function profileFiles(sources: ProfileSources, signal?: AbortSignal): Promise<RewardProfile> {
  let matched = new Uint8Array(0);
  const reader: AggregateReader = new AggregateReader(
    { rolloutInfos: true, planKeys: true, materialized: [sources.materialized], ...(signal ? { signal } : {}) },
    (row, at) => {
      const position = reader.planKeys.find(row._ng_task_index, row._ng_rollout_index);
      if (position === -1) throw new ConfigError(`${at.where}: rollout ${row._ng_task_index}:${row._ng_rollout_index} has no row in ${sources.materialized}`);
      matched[position] = 1;
    },
  );
  // The plan first, on its own: its keys must be unique before results are matched with them.
  await readRunFiles({ materialized: [sources.materialized], results: [] }, [reader], signal);
  reader.planKeys.assertUnique('planned rollout');
  matched = new Uint8Array(reader.planKeys.length);
  await readRunFiles({ results: [sources.rollouts] }, [reader], signal);
  const profile = new RewardProfile(reader.finish(), reader.planKeys, matched);
  const { missing } = profile.completion;
  if (missing > 0 && !sources.allowPartial) {
    throw new ConfigError(`${missing} planned rollouts have no result (e.g. ${profile.missingKeys(5).join(', ')}); pass --allow-partial to profile anyway`);
  }
  return profile;
}

import { flatTokenIds, type EpisodeRecord, type RolloutRecord } from '../core/rollout-record.js';
import { max, mean, min, percentile, rate, sum } from './summarize.js';

/**
 * NeMo RL's multi-turn rollout metrics, each defined once, over successful rollouts (failures are
 * counted, never averaged in). Names and meanings:
 * - `natural_termination_rate`: ended by the environment (`env-done`) — not by a limit.
 * - `truncation_rate`: ended by `max-seq-len` or `max-tokens`.
 * - `max_turns_reached_rate`: still active after the last allowed turn.
 * - token counts per sample: total = the whole sequence, gen = sampled, env = observation tokens after the prompt.
 * - `mean_generation_length`: mean tokens per generation (per turn, not per sample).
 * With no successful rollouts only the counts are present: nothing is averaged over nothing.
 */
export function rolloutMetrics(records: readonly EpisodeRecord[]): Record<string, number> {
  const rollouts = records.filter((record): record is RolloutRecord => record.record_type === 'rollout');
  return rolloutMetricsFromFacts(rollouts.map(rolloutFacts), records.length - rollouts.length);
}

/** What the rollout metrics need of one successful rollout: small enough to keep for a million of them. */
export interface RolloutFacts {
  termination: RolloutRecord['termination']['kind'];
  reward: number;
  reward_components: Readonly<Record<string, number>>;
  total_tokens: number;
  turns: readonly { generated_tokens: number; env_tokens: number }[];
}

export function rolloutFacts(record: Pick<RolloutRecord, 'termination' | 'reward' | 'reward_components' | 'messages' | 'turns'>): RolloutFacts {
  return {
    termination: record.termination.kind,
    reward: record.reward,
    reward_components: record.reward_components,
    total_tokens: flatTokenIds(record).length,
    turns: record.turns.map(({ generated_tokens, env_tokens }) => ({ generated_tokens, env_tokens })),
  };
}

/** `rolloutMetrics` over facts (and a count of failures): the same names and meanings. */
export function rolloutMetricsFromFacts(rollouts: readonly RolloutFacts[], failures = 0): Record<string, number> {
  const counts = { num_samples: rollouts.length, num_failures: failures };
  if (rollouts.length === 0) return counts;

  const turns = rollouts.map((record) => record.turns.length);
  const generations = rollouts.flatMap((record) => record.turns.map((turn) => turn.generated_tokens));
  const genPerSample = rollouts.map((record) => sum(record.turns.map((turn) => turn.generated_tokens)));
  const maxGenPerTurn = rollouts.map((record) => max([0, ...record.turns.map((turn) => turn.generated_tokens)]));
  const rewards = rollouts.map((record) => record.reward);
  return {
    ...counts,
    total_turns: sum(turns),
    avg_turns_per_sample: mean(turns),
    max_turns_per_sample: max(turns),
    'turns_per_sample/p95': percentile(turns, 95),
    'turns_per_sample/p99': percentile(turns, 99),
    natural_termination_rate: rate(rollouts, (record) => record.termination === 'env-done'),
    truncation_rate: rate(rollouts, (record) => record.termination === 'max-seq-len' || record.termination === 'max-tokens'),
    max_turns_reached_rate: rate(rollouts, (record) => record.termination === 'max-turns'),
    mean_total_tokens_per_sample: mean(rollouts.map((record) => record.total_tokens)),
    mean_gen_tokens_per_sample: mean(genPerSample),
    max_gen_tokens_per_sample: max(genPerSample),
    mean_env_tokens_per_sample: mean(rollouts.map((record) => sum(record.turns.map((turn) => turn.env_tokens)))),
    'max_gen_tokens_per_turn/max': max(maxGenPerTurn),
    'max_gen_tokens_per_turn/mean': mean(maxGenPerTurn),
    'max_gen_tokens_per_turn/p95': percentile(maxGenPerTurn, 95),
    mean_total_reward: mean(rewards),
    max_total_reward: max(rewards),
    min_total_reward: min(rewards),
    ...(generations.length > 0 ? { mean_generation_length: mean(generations) } : {}),
    total_generated_tokens: sum(generations),
    ...rewardComponentMeans(rollouts),
  };
}

/** `reward/<name>`: the mean of each named component; a rollout without the component counts as 0 (as NeMo RL fills it). */
function rewardComponentMeans(rollouts: readonly RolloutFacts[]): Record<string, number> {
  const names = new Set(rollouts.flatMap((record) => Object.keys(record.reward_components)));
  return Object.fromEntries([...names].sort().map((name) => [`reward/${name}`, mean(rollouts.map((record) => record.reward_components[name] ?? 0))]));
}

/**
 * Added to the standard deviation before dividing, as the GRPO trainer does (`train/group-advantages.ts`,
 * a layer above the viewer: a spec checks the two agree), so a group whose rewards barely differ does not blow up.
 */
const EPSILON = 1e-6;

/** What GRPO makes of one task's rewards. */
export interface GroupStatistics {
  /** The rollouts with a reward: failures have none and are left out, as the GRPO trainer leaves them out. */
  scored: number;
  mean: number | null;
  /** The population standard deviation (over n, not n − 1), as GRPO normalises. */
  std: number | null;
  /** False when every reward is the same: the group teaches nothing and every advantage is 0. */
  signal: boolean;
}

/**
 * The group's mean and population std over the finite rewards, and each reward's advantage
 * (reward − mean) / (std + 1e-6), 0 for all when std is 0; a missing reward (null) has no advantage.
 */
export function groupStatistics(rewards: readonly (number | null)[]): { statistics: GroupStatistics; advantages: (number | null)[] } {
  const scored = rewards.filter((reward): reward is number => reward !== null && Number.isFinite(reward));
  if (scored.length === 0) return { statistics: { scored: 0, mean: null, std: null, signal: false }, advantages: rewards.map(() => null) };
  const mean = scored.reduce((sum, reward) => sum + reward, 0) / scored.length;
  const std = Math.sqrt(scored.reduce((sum, reward) => sum + (reward - mean) ** 2, 0) / scored.length);
  const advantage = (reward: number) => (std === 0 ? 0 : (reward - mean) / (std + EPSILON));
  return {
    statistics: { scored: scored.length, mean, std, signal: std !== 0 },
    advantages: rewards.map((reward) => (reward !== null && Number.isFinite(reward) ? advantage(reward) : null)),
  };
}

/** Added to a group's standard deviation so a group whose rewards barely differ does not blow up. */
const EPSILON = 1e-6;

/**
 * GRPO's advantages for the rollouts of one task: each reward minus the group's mean, over the
 * group's standard deviation. A group whose rewards are all equal teaches nothing and gets zeros.
 */
export function groupAdvantages(rewards: readonly number[]): number[] {
  if (rewards.length === 0) return [];
  const mean = rewards.reduce((sum, reward) => sum + reward, 0) / rewards.length;
  const variance = rewards.reduce((sum, reward) => sum + (reward - mean) ** 2, 0) / rewards.length;
  const std = Math.sqrt(variance);
  if (std === 0) return rewards.map(() => 0);
  return rewards.map((reward) => (reward - mean) / (std + EPSILON));
}

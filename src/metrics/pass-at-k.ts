import { mean } from './summarize.js';
import { sampleStd } from './column-statistics.js';

/** One rollout's scores (e.g. `{accuracy: 1}`) and, optionally, its extracted answer. */
export interface ScoredRollout {
  scores: Readonly<Record<string, number>>;
  answer?: string | null;
}

/** C(n, k) as a float, exact for the small n of rollout groups. */
function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let result = 1;
  for (let i = 1; i <= k; i++) result = (result * (n - k + i)) / i;
  return result;
}

/** Unbiased pass@k for binary scores: 1 − C(n − c, k) / C(n, k) (Chen et al.), 1 when fewer than k are wrong. */
export function unbiasedPassAtK(n: number, correct: number, k: number): number {
  if (n - correct < k) return 1;
  return 1 - choose(n - correct, k) / choose(n, k);
}

/**
 * NeMo Gym's pass/majority metrics, in percent (0–100), over tasks given as rollouts in rollout order:
 * - `pass@{k}/{name}`: unbiased estimator for binary scores, max of the first k for continuous ones;
 *   tasks with fewer than k rollouts are skipped;
 * - `pass@1[avg-of-{k}]/{name}`: mean of the first k scores (mean@k), with `/std_dev_across_runs` and
 *   `/std_err_across_runs` over the k per-run means for k ≥ 2;
 * - with answers: `majority@{k}/{name}` (most common non-null answer among the first k, ties averaged,
 *   no answer scores 0) and a binary `no_answer` score treated like the others.
 */
export function passMajorityMetrics(tasks: readonly (readonly ScoredRollout[])[], options: { withAnswers?: boolean } = {}): Record<string, number> {
  const withAnswers = options.withAnswers ?? false;
  const scored = tasks.map((rollouts) =>
    rollouts.map((rollout) => ({ ...rollout, scores: withAnswers ? { ...rollout.scores, no_answer: rollout.answer == null ? 1 : 0 } : rollout.scores })),
  );
  const names = [...new Set(scored.flatMap((rollouts) => rollouts.flatMap((rollout) => Object.keys(rollout.scores))))];
  const maxK = Math.max(0, ...scored.map((rollouts) => rollouts.length));
  const metrics: Record<string, number> = {};
  for (let k = 1; k <= maxK; k++) {
    const eligible = scored.filter((rollouts) => rollouts.length >= k);
    if (eligible.length === 0) continue;
    for (const name of names) {
      const binary = scored.every((rollouts) => rollouts.every((rollout) => [0, 1, undefined].includes(rollout.scores[name])));
      metrics[`pass@${k}/${name}`] =
        100 *
        mean(
          eligible.map((rollouts) => {
            const values = rollouts.map((rollout) => rollout.scores[name] ?? 0);
            return binary ? unbiasedPassAtK(values.length, values.filter((value) => value === 1).length, k) : Math.max(...values.slice(0, k));
          }),
        );
      const perRun = Array.from({ length: k }, (_, run) => 100 * mean(eligible.map((rollouts) => rollouts[run]!.scores[name] ?? 0)));
      metrics[`pass@1[avg-of-${k}]/${name}`] = mean(perRun);
      if (k >= 2) {
        metrics[`pass@1[avg-of-${k}]/${name}/std_dev_across_runs`] = sampleStd(perRun);
        metrics[`pass@1[avg-of-${k}]/${name}/std_err_across_runs`] = sampleStd(perRun) / Math.sqrt(k);
      }
      if (withAnswers && name !== 'no_answer') metrics[`majority@${k}/${name}`] = 100 * mean(eligible.map((rollouts) => majorityScore(rollouts.slice(0, k), name)));
    }
  }
  return metrics;
}

function majorityScore(rollouts: readonly ScoredRollout[], name: string): number {
  const counts = new Map<string, { count: number; score: number }>();
  for (const rollout of rollouts) {
    if (rollout.answer == null) continue;
    const entry = counts.get(rollout.answer) ?? { count: 0, score: rollout.scores[name] ?? 0 };
    entry.count += 1;
    counts.set(rollout.answer, entry);
  }
  if (counts.size === 0) return 0;
  const top = Math.max(...[...counts.values()].map((entry) => entry.count));
  return mean([...counts.values()].filter((entry) => entry.count === top).map((entry) => entry.score));
}

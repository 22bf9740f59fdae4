/** Entries of these families count as headline metrics at their largest k. */
const HEADLINE_FAMILIES = [/^pass@(\d+)\/(.+)$/, /^pass@1\[avg-of-(\d+)\]\/(.+)$/, /^majority@(\d+)\/(.+)$/];

/** Spreads reported beside the headline numbers, never as headlines. */
const SPREAD_SUFFIXES = ['std_dev_across_runs', 'std_err_across_runs', 'avg_sample_std_dev'];

/**
 * NeMo Gym's default key metrics (every `mean/*`) plus, as its math servers report them
 * (`highest_k_metrics`), the pass@k, mean@k and majority@k entries at the largest k.
 */
export function keyMetrics(agentMetrics: Readonly<Record<string, number>>): Record<string, number> {
  const headline = (key: string): { family: number; k: number } | undefined => {
    for (let family = 0; family < HEADLINE_FAMILIES.length; family++) {
      const match = HEADLINE_FAMILIES[family]!.exec(key);
      if (match && !SPREAD_SUFFIXES.some((suffix) => match[2]!.endsWith(suffix))) return { family, k: Number(match[1]) };
    }
    return undefined;
  };
  const largestK = HEADLINE_FAMILIES.map(() => 0);
  for (const key of Object.keys(agentMetrics)) {
    const found = headline(key);
    if (found) largestK[found.family] = Math.max(largestK[found.family]!, found.k);
  }
  const result: Record<string, number> = {};
  for (const [key, value] of Object.entries(agentMetrics)) {
    const found = headline(key);
    if (key.startsWith('mean/') || (found && found.k === largestK[found.family])) result[key] = value;
  }
  return result;
}

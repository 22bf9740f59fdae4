/** One agent's aggregate as `collect` hands it back: NeMo Gym's key metrics and NeMo RL's rollout metrics. */
export interface AgentAggregateMetrics {
  agent_ref: { name: string };
  key_metrics: Record<string, unknown>;
  rollout_metrics?: Record<string, unknown>;
}

/**
 * A run's final metrics as TensorBoard scalars, `aggregate/<agent>/<metric>`: every number of each
 * agent's key metrics (pass@k, mean@k, majority@k in percent, means) and rollout metrics (NeMo RL's
 * names), with the values of the aggregate file. What is not a finite number (an agent server's
 * nested objects) has no scalar.
 */
export function aggregateScalars(aggregates: readonly AgentAggregateMetrics[]): Map<string, number> {
  const scalars = new Map<string, number>();
  for (const aggregate of aggregates) {
    for (const metrics of [aggregate.key_metrics, aggregate.rollout_metrics ?? {}]) {
      for (const [name, value] of Object.entries(metrics))
        if (typeof value === 'number' && Number.isFinite(value)) scalars.set(`aggregate/${aggregate.agent_ref.name}/${name}`, value);
    }
  }
  return scalars;
}

/** One agent's headline metrics, as an aggregate holds them (numbers, or what an agent server sent). */
export interface AgentKeyMetrics {
  agent_ref: { name: string };
  key_metrics: Record<string, unknown>;
}

/** The stated unit of every rate in the table: one unit for one kind, whatever scale the metric was computed in. */
export const RATE_UNIT = 'rates in percent';

// Means of yes/no rollout fields: fractions in the aggregate, shown as percentages like pass@k.
const FRACTION_RATES = new Set(['mean/terminated', 'mean/truncated', 'mean/has_training_tokens']);

/**
 * The end-of-collect summary: per agent, a heading naming it and one aligned row per key metric (name
 * left, value right). Rates are percentages: pass@k, mean@k and majority@k already are (NeMo Gym computes
 * them so), the means of yes/no fields are scaled from fractions; rewards, turns and tokens stay numbers.
 */
export function keyMetricsTable(aggregates: readonly AgentKeyMetrics[]): string {
  return aggregates.map(agentTable).join('');
}

function agentTable(aggregate: AgentKeyMetrics): string {
  const rows = Object.entries(aggregate.key_metrics).map(([key, value]) => [key, formatted(key, value)] as const);
  const nameWidth = Math.max(0, ...rows.map(([key]) => key.length));
  const valueWidth = Math.max(0, ...rows.map(([, value]) => value.length));
  const lines = rows.map(([key, value]) => `  ${key.padEnd(nameWidth)}  ${value.padStart(valueWidth)}`);
  return `${aggregate.agent_ref.name} (${RATE_UNIT})\n${lines.map((line) => `${line}\n`).join('')}`;
}

function formatted(key: string, value: unknown): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return typeof value === 'number' ? String(value) : JSON.stringify(value);
  if (isPercent(key)) return `${value.toFixed(1)}%`;
  if (FRACTION_RATES.has(key)) return `${(100 * value).toFixed(1)}%`;
  return plain(value);
}

/** pass@k, pass@1[avg-of-k], mean@k and majority@k, each per score: percentages already. */
function isPercent(key: string): boolean {
  return /^(pass|mean|majority)@/.test(key);
}

/** A count as it is; a mean with enough digits to read, and no more than four significant ones past 10. */
function plain(value: number): string {
  if (Number.isInteger(value)) return String(value);
  const size = Math.abs(value);
  return value.toFixed(size >= 100 ? 1 : size >= 10 ? 2 : 3);
}

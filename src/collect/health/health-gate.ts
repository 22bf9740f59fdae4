import { ConfigError } from '../../core/errors/config-error.js';
import { UnhealthyRunError } from '../../core/errors/unhealthy-run-error.js';
import type { HealthSummary } from './health-summary.js';

/** How many unhealthy rollouts a run may have: a count, or a fraction of its rollouts. */
export type MaxUnhealthy = { count: number } | { fraction: number };

/** `--max-unhealthy`: a whole number (`0`, the default: any error fails) or a fraction below 1 (`0.01`). */
export function parseMaxUnhealthy(text: string): MaxUnhealthy {
  const value = Number(text);
  if (/^\d+$/.test(text.trim())) return { count: value };
  if (text.trim() !== '' && Number.isFinite(value) && value > 0 && value < 1) return { fraction: value };
  throw new ConfigError(`--max-unhealthy: expected a whole number ≥ 0 or a fraction between 0 and 1, got ${JSON.stringify(text)}`);
}

/**
 * Throws `UnhealthyRunError` (exit 1, `unhealthy: …`) when the runs together have more unhealthy
 * rollouts than allowed, naming the checks that found them.
 */
export function assertHealthy(summaries: readonly HealthSummary[], max: MaxUnhealthy): void {
  const unhealthy = summaries.reduce((sum, summary) => sum + summary.rollouts.unhealthy, 0);
  const rollouts = summaries.reduce((sum, summary) => sum + summary.rollouts.total, 0);
  const allowed = 'count' in max ? max.count : Math.floor(max.fraction * rollouts);
  if (unhealthy <= allowed) return;
  const errors = new Map<string, number>();
  for (const summary of summaries) {
    for (const [id, count] of Object.entries(summary.checks)) if (count.severity === 'error') errors.set(id, (errors.get(id) ?? 0) + count.findings);
  }
  const limit = 'count' in max ? `${max.count}` : `${max.fraction} (${allowed} of ${rollouts})`;
  const checks = [...errors].map(([id, count]) => `${id} ${count}`).join(', ');
  const runs = summaries.filter((summary) => summary.rollouts.unhealthy > 0).map((summary) => summary.files.summary);
  throw new UnhealthyRunError(`${unhealthy} of ${rollouts} rollouts are unhealthy, more than --max-unhealthy ${limit} allows (${checks}); see ${runs.join(', ')}`, { unhealthy, rollouts });
}

import { ConfigError } from '../../core/errors/config-error.js';
import { UnhealthyRunError } from '../../core/errors/unhealthy-run-error.js';
import type { HealthSummary } from './health-summary.js';

/** How many unhealthy rollouts a run may have: a count, or a fraction of its rollouts. */
export type MaxUnhealthy = { count: number } | { fraction: number };

/** `collect`'s and `health`'s default: any unhealthy rollout fails the run (warnings pass). */
export const DEFAULT_MAX_UNHEALTHY: MaxUnhealthy = { count: 0 };

/** What `--max-unhealthy` takes, as messages say it. */
export const MAX_UNHEALTHY_EXPECTED = 'expected a whole number ≥ 0 or a fraction between 0 and 1';

/** `--max-unhealthy` as written: a whole number (`0`) or a fraction below 1 (`0.01`); undefined for anything else. */
export function readMaxUnhealthy(text: string): MaxUnhealthy | undefined {
  const value = Number(text);
  if (/^\d+$/.test(text.trim())) return { count: value };
  if (text.trim() !== '' && Number.isFinite(value) && value > 0 && value < 1) return { fraction: value };
  return undefined;
}

/** `readMaxUnhealthy`, or a `ConfigError` naming the flag and what it takes. */
export function parseMaxUnhealthy(text: string): MaxUnhealthy {
  const max = readMaxUnhealthy(text);
  if (max === undefined) throw new ConfigError(`--max-unhealthy: ${MAX_UNHEALTHY_EXPECTED}, got ${JSON.stringify(text)}`);
  return max;
}

/** The limit as the flag is written (`0`, `0.01`). */
export function formatMaxUnhealthy(max: MaxUnhealthy): string {
  return 'count' in max ? `${max.count}` : `${max.fraction}`;
}

/** Runs measured against a limit: how many rollouts are unhealthy, how many the limit allows, and whether that is within it. */
export interface HealthGate {
  unhealthy: number;
  rollouts: number;
  allowed: number;
  passes: boolean;
}

/** The one rule `collect` and `gymnast health` end a run by: no more unhealthy rollouts, over all `summaries`, than `max` allows. */
export function healthGate(summaries: readonly HealthSummary[], max: MaxUnhealthy): HealthGate {
  const unhealthy = summaries.reduce((sum, summary) => sum + summary.rollouts.unhealthy, 0);
  const rollouts = summaries.reduce((sum, summary) => sum + summary.rollouts.total, 0);
  const allowed = 'count' in max ? max.count : Math.floor(max.fraction * rollouts);
  return { unhealthy, rollouts, allowed, passes: unhealthy <= allowed };
}

/** The gate in a few words, for a summary line: `within --max-unhealthy 0` or `past --max-unhealthy 0.01 (3 of 300 allowed)`. */
export function healthGateLine(gate: HealthGate, max: MaxUnhealthy): string {
  return `${gate.passes ? 'within' : 'past'} --max-unhealthy ${limitText(gate, max)}`;
}

/**
 * Throws `UnhealthyRunError` (exit 1, `unhealthy: …`) when the runs together have more unhealthy
 * rollouts than allowed, naming the checks that found them.
 */
export function assertHealthy(summaries: readonly HealthSummary[], max: MaxUnhealthy): void {
  const gate = healthGate(summaries, max);
  if (gate.passes) return;
  const errors = new Map<string, number>();
  for (const summary of summaries) {
    for (const [id, count] of Object.entries(summary.checks)) if (count.severity === 'error') errors.set(id, (errors.get(id) ?? 0) + count.findings);
  }
  const checks = [...errors].map(([id, count]) => `${id} ${count}`).join(', ');
  const runs = summaries.filter((summary) => summary.rollouts.unhealthy > 0).map((summary) => summary.files.summary);
  throw new UnhealthyRunError(
    `${gate.unhealthy} of ${gate.rollouts} rollouts are unhealthy, more than --max-unhealthy ${limitText(gate, max)} allows (${checks}); see ${runs.join(', ')}`,
    { unhealthy: gate.unhealthy, rollouts: gate.rollouts },
  );
}

function limitText(gate: HealthGate, max: MaxUnhealthy): string {
  return 'count' in max ? formatMaxUnhealthy(max) : `${max.fraction} (${gate.allowed} of ${gate.rollouts})`;
}

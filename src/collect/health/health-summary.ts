import type { HealthCheckId, HealthSeverity } from '../../metrics/health/health-check.js';
import type { RolloutVerdictCounts, TaskVerdictCounts } from '../../metrics/health/run-keys-health.js';

/** The version of `<stem>_health.json` and `<stem>_health.jsonl`; bumped on any change a reader must know about. */
export const HEALTH_SCHEMA_VERSION = 1 as const;

/** One check that found something: how many findings, and the first few (each naming file:line). */
export interface CheckCount {
  severity: HealthSeverity;
  findings: number;
  examples: string[];
}

/**
 * `<stem>_health.json`: the verdict counts of one run. Per-rollout verdicts are in `<stem>_health.jsonl`,
 * flagged rollouts only (a healthy rollout is a count here, so the report stays small on any run).
 */
export interface HealthSummary {
  schema_version: typeof HEALTH_SCHEMA_VERSION;
  files: { rollouts: string; failures: string | null; materialized: string | null; summary: string; verdicts: string };
  /** Every planned or seen (task, rollout) key once, by its worst finding. */
  rollouts: RolloutVerdictCounts;
  tasks: TaskVerdictCounts;
  /** Checks with at least one finding, in catalog order. */
  checks: Partial<Record<HealthCheckId, CheckCount>>;
  /** Checks that could not run on this run, and why (no tokenizer known for the decode check). */
  skipped: { check: HealthCheckId; reason: string }[];
  /** Failure rows (every attempt) by `_ng_failure_class`. */
  failures: { rows: number; by_class: Record<string, number> };
  /** Successes that never reached the model (the prompt alone filled `max_seq_len`): nothing to train on. */
  zero_turn_rows: number;
}

/** One line of `<stem>_health.jsonl`: a flagged rollout (or task, rollout null; or unreadable line, keys null). */
export interface HealthVerdictLine {
  _ng_task_index: number | null;
  _ng_rollout_index: number | null;
  where: string;
  verdict: 'warning' | 'unhealthy';
  findings: { check: HealthCheckId; severity: HealthSeverity; message: string }[];
}

/**
 * The one line `collect` (or anything else) prints after a run, e.g.
 * `health: 32 rollouts: 31 healthy, 1 warning, 0 unhealthy, 0 failed (token-drift 1); report in out_health.json`.
 */
export function healthSummaryLine(summary: HealthSummary): string {
  const { total, healthy, warning, unhealthy, evaluation_only: evaluationOnly, failed } = summary.rollouts;
  const checks = Object.entries(summary.checks).map(([id, count]) => `${id} ${count.findings}`);
  const found = checks.length === 0 ? '' : ` (${checks.join(', ')})`;
  // Named only when there are some, so the line of a run of a token-returning policy reads as before.
  const evaluation = evaluationOnly > 0 ? ` ${evaluationOnly} evaluation-only,` : '';
  return `health: ${total} rollouts: ${healthy} healthy, ${warning} warning, ${unhealthy} unhealthy,${evaluation} ${failed} failed${found}; report in ${summary.files.summary}`;
}

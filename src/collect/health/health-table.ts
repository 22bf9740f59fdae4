import { HEALTH_CHECKS, type HealthCheckId } from '../../metrics/health/health-check.js';
import { healthSummaryLine, type HealthSummary } from './health-summary.js';

/**
 * A run's report as a table for a terminal: one row per check that found something (its first
 * example naming file:line), skipped checks, failures by class, and the summary line.
 */
export function healthTable(summary: HealthSummary): string {
  const rows = [
    ['check', 'severity', 'findings', 'first'],
    ...Object.entries(summary.checks).map(([id, count]) => [id, count.severity, String(count.findings), count.examples[0] ?? '']),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const lines = [`${summary.files.rollouts}`];
  if (rows.length === 1) lines.push('  no findings');
  else for (const row of rows) lines.push(`  ${row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ')}`);
  for (const { check, reason } of summary.skipped) lines.push(`  skipped ${check}: ${reason}`);
  const classes = Object.entries(summary.failures.by_class).map(([name, count]) => `${name} ${count}`);
  if (summary.failures.rows > 0) lines.push(`  failure rows: ${summary.failures.rows} (${classes.join(', ')})`);
  lines.push(`  ${healthSummaryLine(summary)}`);
  return `${lines.join('\n')}\n`;
}

/** The checks and what each means, for `--help`. */
export function healthCheckList(): string {
  return (Object.keys(HEALTH_CHECKS) as HealthCheckId[]).map((id) => `  ${id} (${HEALTH_CHECKS[id].severity}): ${HEALTH_CHECKS[id].description}`).join('\n');
}

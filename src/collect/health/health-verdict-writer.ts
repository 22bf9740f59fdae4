import { createWriteStream, type WriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { HEALTH_CHECKS, type HealthCheckId, type HealthFinding, verdictOf } from '../../metrics/health/health-check.js';
import { ChunkedWriter } from '../result-files.js';
import type { CheckCount, HealthVerdictLine } from './health-summary.js';

/** How many findings of each check the summary quotes. */
const EXAMPLES_PER_CHECK = 3;

/**
 * Writes flagged rollouts to `<stem>_health.jsonl` as they are found and counts findings per check:
 * memory holds the counts and a few examples, whatever the number of rows.
 */
export class HealthVerdictWriter {
  readonly #file: WriteStream;
  readonly #writer: ChunkedWriter;
  readonly #checks = new Map<HealthCheckId, CheckCount>();

  constructor(path: string) {
    this.#file = createWriteStream(path);
    this.#writer = new ChunkedWriter(this.#file);
  }

  async write(subject: { task: number | null; rollout: number | null; where: string }, findings: readonly HealthFinding[]): Promise<void> {
    if (findings.length === 0) return;
    for (const finding of findings) this.#count(finding, subject.where);
    const line: HealthVerdictLine = {
      _ng_task_index: subject.task,
      _ng_rollout_index: subject.rollout,
      where: subject.where,
      verdict: verdictOf(findings) === 'unhealthy' ? 'unhealthy' : 'warning',
      findings: findings.map(({ check, severity, message }) => ({ check, severity, message })),
    };
    await this.#writer.write(`${JSON.stringify(line)}\n`);
  }

  /** Checks with findings, in catalog order. */
  checks(): Partial<Record<HealthCheckId, CheckCount>> {
    const ids = Object.keys(HEALTH_CHECKS) as HealthCheckId[];
    return Object.fromEntries(ids.filter((id) => this.#checks.has(id)).map((id) => [id, this.#checks.get(id)!]));
  }

  async close(): Promise<void> {
    try {
      await this.#writer.flush();
    } finally {
      this.#file.end();
    }
    await finished(this.#file);
  }

  #count(finding: HealthFinding, where: string): void {
    let count = this.#checks.get(finding.check);
    if (!count) this.#checks.set(finding.check, (count = { severity: finding.severity, findings: 0, examples: [] }));
    count.findings += 1;
    if (count.examples.length < EXAMPLES_PER_CHECK) count.examples.push(`${where}: ${finding.message}`);
  }
}

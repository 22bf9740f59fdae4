import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { readMaterializedRow } from '../../core/row-reader.js';
import { healthFinding } from '../../metrics/health/health-check.js';
import type { TokenDecoder } from '../../core/token-decoder.js';
import { healthPaths } from '../../metrics/health/health-paths.js';
import { isZeroTurnRow } from '../zero-turn-rows.js';
import { rolloutFindings } from '../../metrics/health/rollout-health.js';
import { RunKeysHealth } from '../../metrics/health/run-keys-health.js';
import { readJsonLines } from '../../util/json-lines.js';
import { collectPaths } from '../collect-paths.js';
import { HEALTH_SCHEMA_VERSION, type HealthSummary } from './health-summary.js';
import { HealthVerdictWriter } from './health-verdict-writer.js';
import { parseLenient, readHealthRow } from './read-health-row.js';

export interface RunHealthOptions {
  /** Decodes token ids for the decode check; without it that check is skipped, with `skippedReason` in the report. */
  decoder?: TokenDecoder;
  skippedReason?: string;
  signal?: AbortSignal;
}

/**
 * Checks one run's rollout file with its failure sidecar and materialized inputs (when they exist
 * beside it), streaming every file once. Flagged rollouts go to `<stem>_health.jsonl` as they are
 * found, the summary to `<stem>_health.json`; memory holds a few numbers a row, never the rows.
 */
export async function checkRunHealth(output: string, options: RunHealthOptions = {}): Promise<HealthSummary> {
  const paths = collectPaths(output);
  const files = { materialized: existing(paths.materialized), failures: existing(paths.failures) };
  const out = healthPaths(output);
  const run = new RunReader(new HealthVerdictWriter(out.verdicts), options);
  try {
    if (files.materialized) await run.readPlan(files.materialized);
    await run.readRows(output, 'results');
    if (files.failures) await run.readRows(files.failures, 'failures');
    await run.readKeyFindings();
  } finally {
    await run.writer.close();
  }
  const summary: HealthSummary = {
    schema_version: HEALTH_SCHEMA_VERSION,
    files: { rollouts: output, failures: files.failures, materialized: files.materialized, summary: out.summary, verdicts: out.verdicts },
    ...run.keys.counts(),
    checks: run.writer.checks(),
    skipped: options.decoder ? [] : [{ check: 'token-text-mismatch', reason: options.skippedReason ?? 'no tokenizer given' }],
    failures: { rows: run.failureRows, by_class: Object.fromEntries([...run.failureClasses].sort(([a], [b]) => a.localeCompare(b))) },
    zero_turn_rows: run.zeroTurnRows,
  };
  await writeFile(out.summary, `${JSON.stringify(summary, null, 2)}\n`);
  return summary;
}

const existing = (path: string) => (existsSync(path) ? path : null);

/** The state of one health pass: the key index, the verdict file, and the failure counts. */
class RunReader {
  readonly keys = new RunKeysHealth();
  readonly writer: HealthVerdictWriter;
  readonly failureClasses = new Map<string, number>();
  failureRows = 0;
  zeroTurnRows = 0;
  readonly #options: RunHealthOptions;
  readonly #files: string[] = [];

  constructor(writer: HealthVerdictWriter, options: RunHealthOptions) {
    this.writer = writer;
    this.#options = options;
  }

  async readPlan(file: string): Promise<void> {
    for await (const { line, text } of readJsonLines(file, this.#options.signal)) {
      const where = `${file}:${line}`;
      try {
        const planned = readMaterializedRow(parseLenient(text), where);
        this.keys.add('plan', planned._ng_task_index, planned._ng_rollout_index, this.#origin(file, line));
      } catch (error) {
        await this.writer.write({ task: null, rollout: null, where }, [healthFinding('row-unreadable', (error as Error).message.replace(`${where}: `, ''))]);
      }
    }
  }

  /** Successes and failures from either file; a success in the failure sidecar is itself a finding. */
  async readRows(file: string, kind: 'results' | 'failures'): Promise<void> {
    for await (const { line, text } of readJsonLines(file, this.#options.signal)) {
      const where = `${file}:${line}`;
      const origin = this.#origin(file, line);
      const row = readHealthRow(text, where);
      if (!row.ok) {
        const position = row.keys ? this.keys.add(row.keys._ng_failure_class ? 'failure' : 'result', row.keys._ng_task_index, row.keys._ng_rollout_index, origin) : undefined;
        if (position !== undefined) this.keys.flag(position, 'error');
        await this.writer.write({ task: row.keys?._ng_task_index ?? null, rollout: row.keys?._ng_rollout_index ?? null, where }, [row.finding]);
        continue;
      }
      const { read } = row;
      const subject = { task: read.row._ng_task_index, rollout: read.row._ng_rollout_index, where };
      if (read.kind === 'failure') {
        this.keys.add('failure', subject.task, subject.rollout, origin);
        this.failureRows += 1;
        this.failureClasses.set(read.row._ng_failure_class, (this.failureClasses.get(read.row._ng_failure_class) ?? 0) + 1);
        continue;
      }
      if (kind === 'failures') {
        await this.writer.write(subject, [healthFinding('row-unreadable', 'a successful row (no _ng_failure_class) in the failure sidecar')]);
        continue;
      }
      if (isZeroTurnRow(read.row)) this.zeroTurnRows += 1;
      const position = this.keys.add('result', subject.task, subject.rollout, origin, read.row.reward);
      const findings = rolloutFindings(read.row, this.#options.decoder);
      for (const finding of findings) this.keys.flag(position, finding.severity);
      await this.writer.write(subject, findings);
    }
  }

  async readKeyFindings(): Promise<void> {
    for (const found of this.keys.findings((origin) => this.#where(origin))) {
      await this.writer.write({ task: found.task, rollout: found.rollout, where: this.#where(found.origin) }, [found.finding]);
    }
  }

  /** File and line packed in one number (as `RolloutKeyIndex` does): no string kept per row. */
  #origin(file: string, line: number): number {
    let index = this.#files.lastIndexOf(file);
    if (index === -1) index = this.#files.push(file) - 1;
    return index * 2 ** 32 + line;
  }

  #where(origin: number): string {
    return `${this.#files[Math.floor(origin / 2 ** 32)]}:${origin % 2 ** 32}`;
  }
}

import { existsSync } from 'node:fs';
import { readMaterializedRow } from '../../core/row-reader.js';
import { healthFinding } from '../../metrics/health/health-check.js';
import type { TokenDecoder } from '../../core/token-decoder.js';
import { healthPaths } from '../../metrics/health/health-paths.js';
import { isZeroTurnRow } from '../../core/zero-turn-row.js';
import { rolloutFindings } from '../../metrics/health/rollout-findings.js';
import { RunKeysHealth } from '../../metrics/health/run-keys-health.js';
import { collectPaths } from '../collect-paths.js';
import { readRunFiles, type OutcomeSource, type RunFiles, type RunLine, type RunRowReader } from '../result-files.js';
import { TaskIdentity } from '../task-identity.js';
import { HEALTH_SCHEMA_VERSION, type HealthSummary } from './health-summary.js';
import { HealthVerdictWriter } from './health-verdict-writer.js';
import { writeFileAtomic } from '../../util/write-file-atomic.js';
import { parseLenient, readHealthRow } from './read-health-row.js';

export interface RunHealthOptions {
  /** Decodes token ids for the decode and vocabulary checks; without it they are skipped, with `skippedReason` in the report. */
  decoder?: TokenDecoder;
  skippedReason?: string;
  /**
   * Agents whose rows an agent server sampled with a model of its own: checked with `remoteDecoder`,
   * never with `decoder`, which did not make them; without it their decode and vocabulary checks are
   * skipped, said in the report. Their other checks run as on any row.
   */
  remoteAgents?: readonly string[];
  remoteDecoder?: TokenDecoder;
  signal?: AbortSignal;
}

/** The checks that need the tokenizer of the model that sampled a row. */
const TOKENIZER_CHECKS = ['token-text-mismatch', 'token-id-out-of-vocabulary'] as const;

/**
 * Checks one run's rollout file with its failure sidecar and materialized inputs (when they exist
 * beside it), streaming every file once. Flagged rollouts go to `<stem>_health.jsonl` as they are
 * found, the summary to `<stem>_health.json`; memory holds a few numbers a row, never the rows.
 */
export async function checkRunHealth(output: string, options: RunHealthOptions = {}): Promise<HealthSummary> {
  const reader = new RunHealthReader(output, options);
  try {
    await readRunFiles(reader.files, [reader], options.signal);
  } catch (error) {
    await reader.close();
    throw error;
  }
  return reader.finish();
}

/** The files a health pass reads: the rollouts, the materialized inputs and the failure sidecar. */
const ORIGIN_FILES = 3;

const existing = (path: string) => (existsSync(path) ? path : null);

/**
 * The health checks as one reader of a pass over a run's files (`readRunFiles`, over `files`), so that
 * `collect` checks its run in the pass that aggregates it. `finish()` writes the reports once every
 * file was read; `close()` ends the verdict file of a pass that failed.
 */
export class RunHealthReader implements RunRowReader {
  readonly files: RunFiles;
  readonly #output: string;
  readonly #keys = new RunKeysHealth();
  readonly #writer: HealthVerdictWriter;
  readonly #failureClasses = new Map<string, number>();
  #failureRows = 0;
  #zeroTurnRows = 0;
  readonly #options: RunHealthOptions;
  readonly #remoteAgents: ReadonlySet<string>;
  /** Rollouts of remote agents whose tokenizer checks were skipped, by agent. */
  readonly #unchecked = new Map<string, number>();
  readonly #identity: TaskIdentity;
  readonly #files: string[] = [];
  #closed: Promise<void> | undefined;

  constructor(output: string, options: RunHealthOptions = {}) {
    const paths = collectPaths(output);
    const [materialized, failures] = [existing(paths.materialized), existing(paths.failures)];
    this.files = { results: [output], ...(materialized ? { materialized: [materialized] } : {}), ...(failures ? { failures: [failures] } : {}) };
    this.#output = output;
    this.#writer = new HealthVerdictWriter(healthPaths(output).verdicts);
    this.#options = options;
    this.#remoteAgents = new Set(options.remoteAgents);
    this.#identity = new TaskIdentity(this.files.materialized, options.signal);
  }

  async planned({ value, error, text, file, line, where }: RunLine): Promise<void> {
    try {
      const planned = readMaterializedRow(error ? parseLenient(text) : value, where);
      this.#keys.add('plan', planned._ng_task_index, planned._ng_rollout_index, this.#origin(file, line));
    } catch (caught) {
      await this.#writer.write({ task: null, rollout: null, where }, [healthFinding('row-unreadable', (caught as Error).message.replace(`${where}: `, ''))]);
    }
  }

  /**
   * Successes and failures from either file, keyed by the rule `aggregate` keys them by (`TaskIdentity`);
   * a success in the failure sidecar is itself a finding.
   */
  async outcome({ value, error, text, file, line, where }: RunLine, kind: OutcomeSource): Promise<void> {
    const origin = this.#origin(file, line);
    const row = readHealthRow(await this.#identity.identify(error ? parseLenient(text) : value, where), where);
    if (!row.ok) {
      const position = row.keys
        ? this.#keys.add(row.keys._ng_failure_class ? 'failure' : 'result', row.keys._ng_task_index, row.keys._ng_rollout_index, origin)
        : undefined;
      if (position !== undefined) this.#keys.flag(position, 'error');
      await this.#writer.write({ task: row.keys?._ng_task_index ?? null, rollout: row.keys?._ng_rollout_index ?? null, where }, [row.finding]);
      return;
    }
    const { read } = row;
    const subject = { task: read.row._ng_task_index, rollout: read.row._ng_rollout_index, where };
    if (read.kind === 'failure') {
      this.#keys.add('failure', subject.task, subject.rollout, origin);
      this.#failureRows += 1;
      this.#failureClasses.set(read.row._ng_failure_class, (this.#failureClasses.get(read.row._ng_failure_class) ?? 0) + 1);
      return;
    }
    if (kind === 'failures') {
      await this.#writer.write(subject, [healthFinding('row-unreadable', 'a successful row (no _ng_failure_class) in the failure sidecar')]);
      return;
    }
    const zeroTurn = isZeroTurnRow(read.row);
    if (zeroTurn) this.#zeroTurnRows += 1;
    const position = this.#keys.add('result', subject.task, subject.rollout, origin, zeroTurn ? Number.NaN : read.row.reward);
    if (read.row.evaluation_only) this.#keys.markEvaluationOnly(position);
    const findings = rolloutFindings(read.row, this.#decoderFor(read.row.agent_ref.name));
    for (const finding of findings) this.#keys.flag(position, finding.severity);
    await this.#writer.write(subject, findings);
  }

  /** The key findings, then the reports: the verdict file closed, the summary written. */
  async finish(): Promise<HealthSummary> {
    try {
      for (const found of this.#keys.findings((origin) => this.#where(origin))) {
        await this.#writer.write({ task: found.task, rollout: found.rollout, where: this.#where(found.origin) }, [found.finding]);
      }
    } finally {
      await this.close();
    }
    const out = healthPaths(this.#output);
    const summary: HealthSummary = {
      schema_version: HEALTH_SCHEMA_VERSION,
      files: {
        rollouts: this.#output,
        failures: this.files.failures?.[0] ?? null,
        materialized: this.files.materialized?.[0] ?? null,
        summary: out.summary,
        verdicts: out.verdicts,
      },
      ...this.#keys.counts(),
      checks: this.#writer.checks(),
      skipped: this.#skipped(),
      failures: { rows: this.#failureRows, by_class: Object.fromEntries([...this.#failureClasses].sort(([a], [b]) => a.localeCompare(b))) },
      zero_turn_rows: this.#zeroTurnRows,
    };
    await writeFileAtomic(out.summary, `${JSON.stringify(summary, null, 2)}\n`);
    return summary;
  }

  /** The tokenizer of the model that sampled an agent's rows, when known. */
  #decoderFor(agent: string): TokenDecoder | undefined {
    if (!this.#remoteAgents.has(agent)) return this.#options.decoder;
    if (this.#options.remoteDecoder === undefined && this.#options.decoder !== undefined) this.#unchecked.set(agent, (this.#unchecked.get(agent) ?? 0) + 1);
    return this.#options.remoteDecoder;
  }

  /** The tokenizer checks that did not run, and why: on no row, or on the rows of remote agents. */
  #skipped(): HealthSummary['skipped'] {
    const skipped = (reason: string) => TOKENIZER_CHECKS.map((check) => ({ check, reason }));
    if (!this.#options.decoder) return skipped(this.#options.skippedReason ?? 'no tokenizer given');
    if (this.#unchecked.size === 0) return [];
    const rollouts = [...this.#unchecked.values()].reduce((sum, count) => sum + count, 0);
    const agents = [...this.#unchecked.keys()].sort().join(', ');
    return skipped(
      `${rollouts} rollout(s) of ${agents}, sampled by an agent server's own model, whose tokenizer the run does not know; pass --tokenizer DIR to check them`,
    );
  }

  /** Ends the verdict file (once, however often called). */
  close(): Promise<void> {
    return (this.#closed ??= this.#writer.close());
  }

  /**
   * File and line packed in one number, the file's place among the pass's (at most 3) files in the
   * low digits: no string kept per row, and an origin of a run under a billion lines fits in 4 bytes
   * (see `NumberList`).
   */
  #origin(file: string, line: number): number {
    let index = this.#files.lastIndexOf(file);
    if (index === -1) index = this.#files.push(file) - 1;
    if (index >= ORIGIN_FILES) throw new RangeError(`a health pass reads at most ${ORIGIN_FILES} files; ${file} is one more`);
    return line * ORIGIN_FILES + index;
  }

  #where(origin: number): string {
    return `${this.#files[origin % ORIGIN_FILES]}:${Math.floor(origin / ORIGIN_FILES)}`;
  }
}

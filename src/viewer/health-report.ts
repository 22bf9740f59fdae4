import { existsSync } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { z } from 'zod';
import { readRunFileText, runFileLines } from './open-run-file.js';
import type { RolloutColumns } from './rollout-columns.js';

/**
 * A rollout's health: `healthy` when the report does not list it; `evaluation-only` for a success of
 * a text-only policy without an error, and `failed` for a failure without one, as `gymnast health` counts them.
 */
export type RolloutHealthVerdict = 'healthy' | 'warning' | 'unhealthy' | 'evaluation-only' | 'failed';
export const ROLLOUT_HEALTH_VERDICTS: readonly RolloutHealthVerdict[] = ['healthy', 'warning', 'unhealthy', 'evaluation-only', 'failed'];
/** The verdicts the report's lines give, mildest first. */
const REPORTED_VERDICTS: readonly RolloutHealthVerdict[] = ['healthy', 'warning', 'unhealthy'];

/**
 * What the viewer reads of `<stem>_health.jsonl` and `<stem>_health.json` (written by `gymnast health`).
 * Check ids are plain strings here: a report from a newer gymnast with more checks still shows.
 */
const HealthFindingRecord = z.object({ check: z.string(), severity: z.enum(['error', 'warning']), message: z.string() });
export type HealthFindingRecord = z.infer<typeof HealthFindingRecord>;

const key = z.number().int().min(0).nullable();
export const HealthVerdictRecord = z.object({
  _ng_task_index: key,
  _ng_rollout_index: key,
  where: z.string(),
  verdict: z.enum(['warning', 'unhealthy']),
  findings: z.array(HealthFindingRecord),
});

const counted = z.number().int().min(0);
export const HealthSummaryRecord = z.object({
  schema_version: z.literal(1),
  // Reports from before evaluation-only rows had their own verdict do not count them.
  rollouts: z.object({ healthy: counted, warning: counted, unhealthy: counted, evaluation_only: counted.default(0), failed: counted.default(0) }),
  checks: z.record(z.string(), z.object({ findings: counted })),
});

/** `overview.health`: the report's rollout counts and each check's number of findings. */
export interface HealthOverview {
  healthy: number;
  warning: number;
  unhealthy: number;
  evaluation_only: number;
  failed: number;
  checks: Record<string, number>;
}

/** `detail.health`, and what a group shows per rollout. */
export interface RolloutHealth {
  verdict: RolloutHealthVerdict;
  findings: HealthFindingRecord[];
}

/** The health report beside a run: its two files' paths. */
export interface HealthFiles {
  summary: string;
  verdicts: string;
}

const HEALTHY: RolloutHealth = { verdict: 'healthy', findings: [] };

/**
 * A run's health report as `gymnast health` wrote it (the checks are `metrics/health`'s, the pass over
 * the run's files and the report `collect/health`'s), read once for the viewer: flagged rollouts by (task, rollout) key (only those, so memory
 * follows the findings, not the run), task-level findings, and the summary's counts. A key with
 * several lines (a row finding and a duplicate-key finding) gets the worst verdict and every finding.
 */
export class HealthReport {
  readonly #rollouts = new Map<number, Map<number, RolloutHealth>>();
  readonly #tasks = new Map<number, HealthFindingRecord[]>();
  /** Lines of the verdict file that do not read as verdicts: skipped, counted. */
  skippedLines = 0;
  overview: HealthOverview | null = null;

  /** The report at `files`, or null when there is no verdict file (the run was never checked). */
  static async read(files: HealthFiles): Promise<HealthReport | null> {
    if (!existsSync(files.verdicts)) return null;
    const health = new HealthReport();
    for await (const { text } of runFileLines(files.verdicts)) health.#add(text);
    health.overview = await readOverview(files.summary);
    return health;
  }

  /** A rollout's verdict and findings; healthy when the report does not list its key. */
  of(task: number, rollout: number): RolloutHealth {
    return this.#rollouts.get(task)?.get(rollout) ?? HEALTHY;
  }

  /** Findings about a whole task (every repeat failed, or scored 0), not one rollout. */
  taskFindings(task: number): HealthFindingRecord[] {
    return this.#tasks.get(task) ?? [];
  }

  #add(text: string): void {
    let line: z.infer<typeof HealthVerdictRecord>;
    try {
      line = HealthVerdictRecord.parse(JSON.parse(text));
    } catch {
      this.skippedLines += 1;
      return;
    }
    const { _ng_task_index: task, _ng_rollout_index: rollout } = line;
    // Lines with no key (an unreadable row or plan line) belong to no rollout: the summary counts them.
    if (task === null) return;
    if (rollout === null) {
      this.#tasks.set(task, [...this.taskFindings(task), ...line.findings]);
      return;
    }
    let byRollout = this.#rollouts.get(task);
    if (!byRollout) this.#rollouts.set(task, (byRollout = new Map()));
    const known = byRollout.get(rollout);
    byRollout.set(
      rollout,
      known
        ? { verdict: worse(known.verdict, line.verdict), findings: [...known.findings, ...line.findings] }
        : { verdict: line.verdict, findings: line.findings },
    );
  }
}

function worse(a: RolloutHealthVerdict, b: RolloutHealthVerdict): RolloutHealthVerdict {
  return REPORTED_VERDICTS.indexOf(a) >= REPORTED_VERDICTS.indexOf(b) ? a : b;
}

/**
 * The verdict `gymnast health` counted for the rollout at `at`: the report's, raised by its task's
 * findings where they cover it; without an error, `failed` for a failure and `evaluation-only` for such
 * a success (findings kept), which the report, listing flagged rollouts only, cannot name when nothing
 * was found. So the table's health filter counts what the overview's summary counts.
 */
export function rolloutHealthAt(health: HealthReport, columns: RolloutColumns, at: number): RolloutHealth {
  const task = columns.task.values[at]!;
  const reported = withTaskFindings(health.of(task, columns.rollout.values[at]!), taskFindingsCovering(health.taskFindings(task), columns, at));
  if (reported.verdict === 'unhealthy') return reported;
  if (columns.isFailure(at)) return { verdict: 'failed', findings: reported.findings };
  return columns.evaluationOnly.values[at] === 1 ? { verdict: 'evaluation-only', findings: reported.findings } : reported;
}

/**
 * The task's findings that flag the rollout at `at`, as `gymnast health` flags them: a task whose
 * repeats all scored 0 (a warning) flags its scored successes; a task none of whose repeats succeeded
 * (an error, never beside a success) flags every rollout. A prompt that never reached the model is not flagged.
 */
function taskFindingsCovering(findings: readonly HealthFindingRecord[], columns: RolloutColumns, at: number): readonly HealthFindingRecord[] {
  if (findings.length === 0) return findings;
  if (columns.isFailure(at)) return findings.filter((finding) => finding.severity === 'error');
  return Number.isNaN(columns.reward.values[at]!) ? [] : findings;
}

function withTaskFindings(reported: RolloutHealth, findings: readonly HealthFindingRecord[]): RolloutHealth {
  if (findings.length === 0) return reported;
  const verdict = findings.reduce((worst, finding) => worse(worst, finding.severity === 'error' ? 'unhealthy' : 'warning'), reported.verdict);
  return { verdict, findings: [...reported.findings, ...findings] };
}

/** The summary's counts, or null when it is missing or not a summary this viewer reads. */
async function readOverview(path: string): Promise<HealthOverview | null> {
  if (!existsSync(path)) return null;
  const text = await readRunFileText(path);
  const parsed = HealthSummaryRecord.safeParse(parseOrUndefined(text));
  if (!parsed.success) return null;
  const { rollouts, checks } = parsed.data;
  return {
    healthy: rollouts.healthy,
    warning: rollouts.warning,
    unhealthy: rollouts.unhealthy,
    evaluation_only: rollouts.evaluation_only,
    failed: rollouts.failed,
    checks: Object.fromEntries(Object.entries(checks).map(([id, count]) => [id, count.findings])),
  };
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The files' sizes and modification times: a change means `gymnast health` wrote them again. */
export async function healthFilesStamp(files: HealthFiles): Promise<string> {
  const stamps = await Promise.all(
    [files.summary, files.verdicts].map((path) =>
      lstat(path).then(
        (found) => `${found.size}@${found.mtimeMs}`,
        () => '-',
      ),
    ),
  );
  return stamps.join(' ');
}

import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../core/errors/config-error.js';
import { hasKind } from '../core/errors/has-kind.js';
import { isZeroTurnRow } from '../core/zero-turn-row.js';
import { healthPaths } from '../metrics/health/health-paths.js';
import { runJobs, type EpisodeOptions } from '../engine/index.js';
import type { TokenDecoder } from '../core/token-decoder.js';
import type { Policy } from '../policy/policy.js';
import type { ConversationRenderer } from '../tokens/conversation-renderer.js';
import { admit, type CollectJob } from './admission.js';
import type { Agent } from './agent.js';
import type { AgentAggregate } from '../metrics/index.js';
import { AggregateReader } from './aggregate-reader.js';
import { writeAggregateFile } from './write-aggregate-file.js';
import type { HealthSummary } from './health/health-summary.js';
import { IsolatedReader } from './isolated-reader.js';
import { readRunFiles } from './result-files.js';
import { checkInput, checkMaterialized, plannedRows, type PlanSource } from './collect-plan.js';
import { collectPaths } from './collect-paths.js';
import { checkSettings, type CollectSettings, type CollectSettingsInput } from './collect-settings.js';
import { type AutoConcurrencyRun, type AutoConcurrencySummary, checkReplicaMetrics, startAutoConcurrency } from './auto-concurrency.js';
import { JsonlRolloutSink } from './jsonl-rollout-sink.js';
import { checkOutputPaths, checkReadFilesApart, makeOutputFolder } from './output-paths.js';
import { refuseToErase } from './refuse-to-erase.js';
import type { PromptConfig } from './prompt-config.js';
import { loadResumeState, ResumeState, wouldRetry } from './resume-state.js';
import { RowPlanner, type NumRepeats, type SeedField } from './row-planner.js';
import { checkSameRun, resumeKind, startFresh, type ResumeKind, type RunIdentity } from './run-identity.js';
import { acquireRunLock } from './run-lock.js';
import { withServerAggregates, type CollectedAggregate } from './server-aggregate.js';
import type { RolloutTransport } from './rollout-transport.js';
import type { RolloutOutcome, Sink } from './sink.js';
import { writeFailure } from './write-failure.js';

/**
 * What `collect` runs. The settings it shares with `gymnast collect` (`concurrency`, `maxTurns`,
 * `sampling`, `numRepeats`, …) are optional and default to `collectDefaults`, as the CLI's flags do.
 */
export interface CollectOptions extends CollectSettingsInput {
  input: string;
  output: string;
  agent?: string;
  /** Rollouts per row: a count, or counts by agent (default `collectDefaults.numRepeats`). */
  numRepeats?: NumRepeats;
  addSeed?: boolean;
  /** Where `addSeed` puts the seed: `request` (default) or `extra-body` (see `PlannerOptions.seedField`). */
  seedField?: SeedField;
  /** Keep the `_ng_task_index` a row already has instead of numbering it by its line (see `PlannerOptions.keepTaskIndices`). */
  keepTaskIndices?: boolean;
  overrides?: Record<string, unknown>;
  promptConfig?: PromptConfig;
  policy: Policy;
  renderer: ConversationRenderer;
  /** Continue the run in place: skip done keys, retry failed ones, refuse a changed plan or config. */
  resume?: boolean;
  /**
   * Start afresh even though the output or its failures already hold rows, erasing them. Without it
   * (or `resume`) such a run is refused before anything is written: a second run of the same command
   * must not silently replace the first one's rollouts.
   */
  overwrite?: boolean;
  /** Stops admitting rollouts; those in flight finish (the first Ctrl-C). */
  stopAdmitting?: AbortSignal;
  /** Aborts rollouts in flight; they are recorded as `aborted` failures (the second Ctrl-C). */
  signal?: AbortSignal;
  onProgress?: (progress: CollectProgress) => void;
  onNotice?: (message: string) => void;
  /** Agents beyond the built-in ones, by name (NeMo Gym agent servers); they take precedence. */
  agents?: ReadonlyMap<string, Agent>;
  /**
   * Of `agents`, those whose rows a server samples with a model of its own, not `policy` (`--agent-server`):
   * recorded in the run identity (`remote_agents`), and their rows' decode check uses `health.remoteDecoder` alone.
   */
  remoteAgents?: readonly string[];
  /** Where outcomes go besides the JSONL files (a queue, a store); each is started, written and finished with them. */
  sinks?: readonly Sink[];
  /** List every rollout in its task's group in the aggregate file (NeMo Gym's `rollout_infos`, which grow with the rollouts). */
  rolloutInfos?: boolean;
  /**
   * Check the run's health (`<stem>_health.json`, `<stem>_health.jsonl`) in the pass that aggregates it;
   * the decode check uses `decoder` (the policy's tokenizer), else finds one as `gymnast health` does,
   * and on the rows of `remoteAgents` `remoteDecoder` (their model's tokenizer), else none.
   * Not on an interrupted run.
   */
  health?: { decoder?: TokenDecoder; remoteDecoder?: TokenDecoder };
  /**
   * Run the admitted rollouts through this transport (`--queue`: workers on other machines) instead of
   * in this process; `concurrency` is then how many rollouts it holds at once (the admission window).
   */
  transport?: RolloutTransport;
}

/** Where a run stands; on a resumed run, the earlier rollouts that are not run again count too. */
export interface CollectProgress {
  /** Planned rollouts that ended: successes and failures. */
  done: number;
  total: number;
  /** Of `done`, those that failed (in this run, or earlier and given up on). */
  failures: number;
  /** Of `done`, the successes whose prompt alone filled `max_seq_len`: never scored (termination `prompt-too-long`). */
  promptTooLong: number;
  /** The rewards of the scored successes in `done`: their mean is `rewardSum / (done - failures - promptTooLong)`. */
  rewardSum: number;
}

type CollectPaths = ReturnType<typeof collectPaths>;

export interface CollectSummary {
  paths: CollectPaths;
  /** Successful rollouts in the output (earlier runs of a resumed one included); with none, no aggregate file is written. */
  rollouts: number;
  /** Rollouts that failed in this run. */
  failures: number;
  /** The planned rollouts (a resumed run's earlier ones included). */
  planned: number;
  /** Planned rollouts without a success that `--resume` would run again. */
  retryable: number;
  /** Planned rollouts without a success that it would not (terminal, or out of attempts), earlier runs' included. */
  givenUp: number;
  /**
   * Per agent: NeMo Gym's agent and key metrics (from the agent's server's `/aggregate_metrics` when it
   * has one: `computed_by`) and NeMo RL's rollout metrics; the per-task groups are in the aggregate file.
   */
  aggregate: Omit<CollectedAggregate, 'group_level_metrics'>[];
  /** The run's health when `health` was asked for and the run was not interrupted. */
  health?: HealthSummary;
  /** With `concurrency: 'auto'`: the rollouts it let run at once. */
  autoConcurrency?: AutoConcurrencySummary;
}

/**
 * `gymnast collect`, streaming end to end so memory follows the concurrency, not the dataset:
 * 1. the output paths (none of them the input) and every input line are checked (all bad lines reported
 *    together, nothing written), and a fresh start over an earlier run's rows is refused unless
 *    `overwrite` (or `resume`) is given;
 * 2. the run takes the output's lock: one writer per output, or rows would be duplicated (and looks at
 *    the earlier rows again under it);
 * 3. the plan is written to the materialized inputs (hashed as it goes: the run's identity), or, on
 *    resume, checked against the recorded one;
 * 4. rollouts are read back from that file and admitted by the scheduler as capacity frees, each
 *    outcome written to the sinks as it ends (successes to the output, failures to the sidecar,
 *    never as a reward of 0);
 * 5. NeMo Gym's aggregate metrics (and, when asked, the run's health) are computed over the persisted
 *    rows in one pass, and the lock released.
 */
export async function collect(options: CollectOptions): Promise<CollectSummary> {
  const settings = checkSettings(options);
  if (settings.concurrency === 'auto') await checkReplicaMetrics(options.policy);
  const paths = collectPaths(options.output);
  checkOutputPaths(paths);
  checkReadFilesApart(paths, [{ flag: '--input', path: options.input }]);
  const planner = createPlanner(options);
  const source: PlanSource = {
    input: options.input,
    maxLineBytes: settings.maxLineBytes,
    ...(settings.limit === undefined ? {} : { limit: settings.limit }),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  // A rerun by mistake is told at once, before a large input is read through.
  await refuseToErase(paths, options);
  const kind = options.resume ? resumeKind(paths) : 'none';
  const unrecorded = kind === 'unrecorded' ? await checkMaterialized(paths.materialized, planner, options.signal) : undefined;
  if (unrecorded === undefined) await checkPlan(source, planner, options);

  makeOutputFolder(paths.output);
  const lock = acquireRunLock(paths.lock, paths.output, options.onNotice ? { onNotice: options.onNotice } : {});
  try {
    return await collectLocked(options, settings, paths, planner, source, { kind, ...(unrecorded === undefined ? {} : { rollouts: unrecorded }) });
  } finally {
    lock.release();
  }
}

/** Pass 1 over the input: every line checked before anything is written. */
async function checkPlan(source: PlanSource, planner: RowPlanner, options: CollectOptions): Promise<void> {
  await checkInput(source, planner);
  const unused = planner.unusedRepeatAgents();
  if (unused.length > 0) options.onNotice?.(`--num-repeats names agents no row uses: ${unused.join(', ')}`);
}

/** What the first look found to resume, and for a run gymnast did not record, how many rollouts its plan holds. */
interface Checked {
  kind: ResumeKind;
  rollouts?: number;
}

/** Everything that writes: only ever one of these per output at a time. */
async function collectLocked(
  options: CollectOptions,
  settings: CollectSettings,
  paths: CollectPaths,
  planner: RowPlanner,
  source: PlanSource,
  checked: Checked,
): Promise<CollectSummary> {
  // Again under the lock: a run that ended a moment ago, after the first look, may have left rows.
  await refuseToErase(paths, options);
  const kind = options.resume ? resumeKind(paths) : 'none';
  if (kind !== checked.kind)
    throw new ConfigError(`${paths.output} changed while the run started (another run wrote ${paths.run} or the plan): run the same command again`);
  const resumed = kind !== 'none';
  if (options.resume && !resumed) options.onNotice?.(`nothing to resume at ${paths.run}: starting a fresh run`);
  const config = configIdentity(options, settings);
  const identity = await runIdentity(paths, planner, source, config, checked, options.onNotice);
  const { transport } = options;
  if (transport && identity.plan_sha256 === undefined)
    throw new ConfigError(`${paths.output} has no ${paths.run} (a run NeMo Gym started): a run through a queue needs its identity; resume it without --queue`);
  const state = resumed ? loadResumeState(paths, options.onNotice) : new ResumeState();
  if (resumed) options.onNotice?.(`resuming: ${state.done} done before, running the rest`);
  removeHealthReport(paths.output);

  const files = new JsonlRolloutSink(paths);
  const extraSinks = options.sinks ?? [];
  const sinks = [files, ...extraSinks];
  // A resumed run's progress starts from the earlier rollouts that will not run again, rewards and all:
  // its done/total counts them, so its mean reward must too.
  const givenUp = state.givenUp(settings.maxAttempts);
  const progress: CollectProgress = {
    done: state.done + givenUp,
    total: identity.rollouts,
    failures: givenUp,
    promptTooLong: state.promptTooLong,
    rewardSum: state.rewardSum,
  };
  const jobs = admit(paths.materialized, planner, state, settings.maxAttempts);
  const episode = episodeOptions(options, settings);
  // A failed write (a full disk) ends the rollouts in flight too: their rows could not be written.
  const writeFailed = new AbortController();
  let ran = false;
  let retryable = 0;
  /** What follows a rollout: one function for all of them, so a rollout in flight holds no async frame of its own here (issue 26). */
  const keep = async (outcome: RolloutOutcome, queued?: CollectJob) => {
    // The files first: an outcome they could not keep must not reach a queue that would get it again on resume.
    await files.write(outcome).catch((error: unknown) => {
      if (hasKind(error, 'write-failed')) writeFailed.abort(error);
      throw error;
    });
    await Promise.all(extraSinks.map((sink) => sink.write(outcome)));
    // Only once the files hold it does the transport's copy go: a coordinator that dies before finds it again on resume.
    if (queued) await transport?.written(queued);
    count(progress, outcome);
    if (outcome.kind === 'failure' && wouldRetry(outcome.row, settings.maxAttempts)) retryable += 1;
    options.onProgress?.({ ...progress });
  };
  let auto: AutoConcurrencyRun | undefined;
  let autoSummary: AutoConcurrencySummary | undefined;
  let transportStarted = false;
  try {
    await Promise.all(sinks.map((sink) => sink.start({ plannedRollouts: identity.rollouts, resumed, ended: progress.done })));
    if (transport) {
      transportStarted = true;
      await transport.start({ runId: transportRunId(identity.plan_sha256!, config, paths.output), fresh: !resumed, config });
    }
    const { concurrency } = settings;
    if (concurrency === 'auto') auto = startAutoConcurrency(options.policy);
    await runJobs(
      jobs,
      {
        schedule: { kind: settings.schedule, concurrency: concurrency === 'auto' ? auto!.ceiling : concurrency },
        ...(auto ? { limit: auto.limit } : {}),
        ...signals(options, writeFailed.signal),
      },
      (job, control) =>
        transport ? transport.run(job, control.signal).then((outcome) => keep(outcome, job)) : job.agent.run(job.row, { episode, control }).then(keep),
    );
    ran = true;
  } finally {
    autoSummary = await auto?.stop();
    if (transportStarted) await transport!.finish(ran && !options.stopAdmitting?.aborted);
    const finishing = await Promise.allSettled(sinks.map((sink) => sink.finish()));
    const failed = finishing.find((result) => result.status === 'rejected');
    // After a failed run, a sink that also fails to close must not hide why the run failed.
    // biome-ignore lint/correctness/noUnsafeFinally: thrown only when the try block completed (`ran`), so it hides no error of its own
    if (ran && failed) throw failed.reason;
  }
  if (givenUp > 0) options.onNotice?.(`${givenUp} rollouts failed ${settings.maxAttempts} times (or terminally) and were not retried`);

  const { computed, health } = await readRun(paths, options);
  const successes = progress.done - progress.failures;
  const aggregate =
    successes === 0
      ? []
      : await withServerAggregates(computed, options.agents ?? new Map(), paths.output, {
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.onNotice ? { onNotice: options.onNotice } : {}),
        });
  await writeAggregate(paths.aggregate, aggregate);
  // Raised only now: the health reports failing (a full disk under them) must not cost the run its aggregate.
  if (health && 'error' in health) throw health.error;
  return {
    paths,
    rollouts: successes,
    failures: progress.failures - givenUp,
    planned: identity.rollouts,
    retryable,
    givenUp: progress.failures - retryable,
    aggregate: aggregate.map(({ group_level_metrics: _groups, ...agent }) => agent),
    ...(autoSummary ? { autoConcurrency: autoSummary } : {}),
    ...(health && 'result' in health ? { health: health.result } : {}),
  };
}

/**
 * The aggregate over the persisted rows and, when asked and the run was not interrupted, the health
 * reports, in one pass over the files: each row read and parsed once (a second pass over a large
 * output cost as much again). The health checks are imported here, after the run. Their failure stops
 * them alone and is handed back, so the aggregate is still computed and written.
 */
async function readRun(
  paths: CollectPaths,
  options: CollectOptions,
): Promise<{ computed: AgentAggregate[]; health?: { result: HealthSummary } | { error: unknown } }> {
  const aggregate = new AggregateReader(options.rolloutInfos ? { rolloutInfos: true } : {});
  const files = { results: [paths.output], failures: [paths.failures], materialized: [paths.materialized] };
  const healthOptions = options.stopAdmitting?.aborted ? undefined : options.health;
  // The pass takes seconds on a large run (about 5 s a 100,000 rollouts): say what the wait after the last rollout is.
  options.onNotice?.(`reading the rollouts back for the aggregate metrics${healthOptions ? ' and the health checks' : ''}`);
  if (!healthOptions) {
    await readRunFiles(files, [aggregate]);
    return { computed: aggregate.finish() };
  }
  const { runHealthReader } = await import('./health/run-health.js');
  const health = new IsolatedReader(await runHealthReader(paths.output, { ...healthOptions, remoteAgents: options.remoteAgents ?? [] }));
  try {
    await readRunFiles(files, [aggregate, health]);
  } catch (error) {
    await health.reader.close();
    throw error;
  }
  return { computed: aggregate.finish(), health: await health.finish() };
}

/**
 * The run's identity: checked against the recorded one, or recorded afresh with the plan. A run gymnast
 * did not record is taken up as NeMo Gym's `resume_from_cache` takes it up, from its materialized
 * inputs and output as they are, with nothing to check the plan or settings against; none is recorded
 * for it either, since the next resume could not plan that file again from the input to check it.
 */
async function runIdentity(
  paths: CollectPaths,
  planner: RowPlanner,
  source: PlanSource,
  config: Record<string, unknown>,
  checked: Checked,
  onNotice?: (message: string) => void,
): Promise<Pick<RunIdentity, 'rollouts'> & Partial<Pick<RunIdentity, 'plan_sha256'>>> {
  if (checked.kind === 'recorded') return checkSameRun(paths, plannedRows(source, planner), config);
  if (checked.kind === 'none') return startFresh(paths, plannedRows(source, planner), config);
  onNotice?.(
    `${paths.output} has no ${paths.run} (a run NeMo Gym started): its run identity could not be checked. Resuming it as NeMo Gym's resume_from_cache does: the rollouts of ${paths.materialized} not yet in the output run; the input, --limit, --num-repeats, --set, --add-seed and --prompt-config are not read`,
  );
  return { rollouts: checked.rollouts ?? 0 };
}

/**
 * The aggregate file, or none when no rollout succeeded: NeMo Gym writes none then and asks no server
 * (`002 rollout_collection.py _call_aggregate_metrics`: `if not results: return None`). One an earlier
 * run left goes, since it describes rows this run has not got.
 */
async function writeAggregate(path: string, aggregate: readonly CollectedAggregate[]): Promise<void> {
  try {
    if (aggregate.length === 0) rmSync(path, { force: true });
    else await writeAggregateFile(path, aggregate);
  } catch (error) {
    throw writeFailure(path, error);
  }
}

/**
 * A health report beside the output describes its rows as they were. Once this run changes them the
 * report is stale, and the viewer would show its verdicts against the new rows, so it goes before the
 * first row is written. The end-of-run pass writes the new one; an interrupted run, or one without
 * health checks, leaves none.
 */
function removeHealthReport(output: string): void {
  for (const path of Object.values(healthPaths(output))) {
    try {
      rmSync(path, { force: true });
    } catch (error) {
      throw writeFailure(path, error, 'remove it (or make it writable), then run again');
    }
  }
}

function createPlanner(options: CollectOptions): RowPlanner {
  return new RowPlanner({
    file: options.input,
    ...(options.agent ? { agent: options.agent } : {}),
    ...(options.numRepeats === undefined ? {} : { numRepeats: options.numRepeats }),
    ...(options.addSeed ? { addSeed: true } : {}),
    ...(options.seedField ? { seedField: options.seedField } : {}),
    ...(options.keepTaskIndices ? { keepTaskIndices: true } : {}),
    ...(options.overrides ? { overrides: options.overrides } : {}),
    ...(options.promptConfig ? { promptConfig: options.promptConfig } : {}),
    ...(options.agents ? { agents: options.agents } : {}),
  });
}

/**
 * A run's id on a transport: its plan, its settings and its output. The same command resumed gets the
 * same id, so what the transport holds of it is found again; two outputs of one plan do not share one.
 */
function transportRunId(planSha256: string, config: Record<string, unknown>, output: string): string {
  return createHash('sha256')
    .update(JSON.stringify({ plan: planSha256, config, output: resolve(output) }))
    .digest('hex')
    .slice(0, 16);
}

/** The settings that shape a rollout: a resume under different ones would mix two experiments in one file. */
function configIdentity(options: CollectOptions, settings: CollectSettings): Record<string, unknown> {
  const remote = [...new Set(options.remoteAgents)].sort();
  return {
    policy: options.policy.name,
    // Only when there are some, so the identity of a run without them reads as before and resumes.
    ...(remote.length === 0 ? {} : { remote_agents: remote }),
    sampling: settings.sampling,
    max_turns: settings.maxTurns,
    max_seq_len: settings.maxSeqLen,
    on_max_tokens: settings.onMaxTokens,
    rollout_timeout_ms: settings.rolloutTimeoutMs ?? null,
  };
}

function episodeOptions(options: CollectOptions, settings: CollectSettings): Omit<EpisodeOptions, 'environment'> {
  return {
    policy: options.policy,
    renderer: options.renderer,
    maxTurns: settings.maxTurns,
    maxSeqLen: settings.maxSeqLen,
    onMaxTokens: settings.onMaxTokens,
    sampling: settings.sampling,
    ...(settings.rolloutTimeoutMs === undefined ? {} : { episodeTimeoutMs: settings.rolloutTimeoutMs }),
  };
}

function signals(options: CollectOptions, writeFailed: AbortSignal): { stopAdmitting?: AbortSignal; signal: AbortSignal } {
  return {
    ...(options.stopAdmitting ? { stopAdmitting: options.stopAdmitting } : {}),
    signal: options.signal ? AbortSignal.any([options.signal, writeFailed]) : writeFailed,
  };
}

function count(progress: CollectProgress, outcome: RolloutOutcome): void {
  progress.done += 1;
  if (outcome.kind === 'failure') progress.failures += 1;
  else if (isZeroTurnRow(outcome.row)) progress.promptTooLong += 1;
  else progress.rewardSum += outcome.row.reward;
}

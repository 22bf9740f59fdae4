import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { dirname } from 'node:path';
import { ConfigError } from '../core/errors/config-error.js';
import type { SamplingParams } from '../core/sampling-params.js';
import type { EpisodeOptions } from '../engine/index.js';
import { aggregateMetrics, rolloutFacts, rolloutMetricsFromFacts, type AggregateMetrics, type ResultRow, type RolloutFacts } from '../metrics/index.js';
import type { Policy } from '../policy/policy.js';
import type { ConversationRenderer } from '../tokens/conversation-renderer.js';
import { readJsonLines } from '../util/json-lines.js';
import { TaskCounter } from '../util/task-counter.js';
import type { Agent } from './agent.js';
import { collectPaths } from './collect-paths.js';
import type { MaterializedRow } from './dataset-row.js';
import { JsonlSink } from './jsonl-sink.js';
import { recordFromOutputRow } from './output-row.js';
import type { PromptConfig } from './prompt-config.js';
import { compactKey, repairJsonl, ResumeState } from './resume-state.js';
import { InvalidInputError, type RowIssue } from './row-error.js';
import { RowPlanner, type NumRepeats } from './row-planner.js';

export interface CollectOptions {
  input: string;
  output: string;
  agent?: string;
  numRepeats?: NumRepeats;
  addSeed?: boolean;
  overrides?: Record<string, unknown>;
  promptConfig?: PromptConfig;
  limit?: number;
  concurrency: number;
  policy: Policy;
  renderer: ConversationRenderer;
  maxSeqLen: number;
  maxTurns: number;
  sampling: SamplingParams;
  rolloutTimeoutMs?: number;
  /** Continue the run in place: skip done keys, retry failed ones, refuse a changed plan or config. */
  resume?: boolean;
  /** Attempts per rollout before its failure is final (default 3). */
  maxAttempts?: number;
  /** Stops admitting rollouts; those in flight finish (the first Ctrl-C). */
  stopAdmitting?: AbortSignal;
  /** Aborts rollouts in flight; they are recorded as `aborted` failures (the second Ctrl-C). */
  signal?: AbortSignal;
  onProgress?: (progress: CollectProgress) => void;
  onNotice?: (message: string) => void;
  /** Agents beyond the built-in ones, by name (NeMo Gym agent servers); they take precedence. */
  agents?: ReadonlyMap<string, Agent>;
}

export interface CollectProgress {
  done: number;
  total: number;
  failures: number;
  rewardSum: number;
}

export interface CollectSummary {
  paths: ReturnType<typeof collectPaths>;
  /** Successful rollouts in the output (earlier runs of a resumed one included). */
  rollouts: number;
  /** Rollouts that failed in this run. */
  failures: number;
  aggregate: (AggregateMetrics & { rollout_metrics: Record<string, number> })[];
}

interface RunIdentity {
  plan_sha256: string;
  rollouts: number;
  config: Record<string, unknown>;
}

/** Bad lines kept with their details; the rest are counted. */
const MAX_REPORTED_ISSUES = 200;

/**
 * `gymnast collect`, streaming end to end so memory follows the concurrency, not the dataset:
 * 1. every line is checked (all bad lines reported together, nothing written);
 * 2. the plan is written to the materialized inputs (hashed as it goes: the run's identity);
 * 3. rollouts are read back from that file and admitted as capacity frees, each result appended as
 *    it ends (successes to the output, failures to the sidecar, never as a reward of 0);
 * 4. NeMo Gym's aggregate metrics are computed over the successes.
 */
export async function collect(options: CollectOptions): Promise<CollectSummary> {
  const paths = collectPaths(options.output);
  const planner = new RowPlanner({
    file: options.input,
    ...(options.agent ? { agent: options.agent } : {}),
    ...(options.numRepeats === undefined ? {} : { numRepeats: options.numRepeats }),
    ...(options.addSeed ? { addSeed: true } : {}),
    ...(options.overrides ? { overrides: options.overrides } : {}),
    ...(options.promptConfig ? { promptConfig: options.promptConfig } : {}),
    ...(options.agents ? { agents: options.agents } : {}),
  });
  await checkInput(options, planner);
  const unused = planner.unusedRepeatAgents();
  if (unused.length > 0) options.onNotice?.(`--num-repeats names agents no row uses: ${unused.join(', ')}`);

  const resuming = options.resume === true && existsSync(paths.run) && existsSync(paths.materialized);
  if (options.resume && !resuming) options.onNotice?.(`nothing to resume at ${paths.run}: starting a fresh run`);
  const state = new ResumeState();
  const identity = resuming ? await checkSameRun(paths, planner, options, state) : await startFresh(paths, planner, options);

  const outputs = new JsonlSink(paths.output);
  const failures = new JsonlSink(paths.failures);
  const progress: CollectProgress = { done: 0, total: identity.rollouts, failures: 0, rewardSum: 0 };
  const context = { episode: episodeOptions(options), ...(options.signal ? { signal: options.signal } : {}) };
  try {
    await runPool(admit(paths.materialized, planner, state, options, progress), options.concurrency, options.stopAdmitting ?? options.signal, async ({ row, agent }) => {
      const outcome = await agent.run(row, context);
      (outcome.kind === 'rollout' ? outputs : failures).write(outcome.row);
      progress.done += 1;
      if (outcome.kind === 'rollout') progress.rewardSum += outcome.reward ?? 0;
      else progress.failures += 1;
      options.onProgress?.({ ...progress });
    });
  } finally {
    outputs.close();
    failures.close();
  }
  const aggregate = await aggregateOutput(paths);
  writeFileSync(paths.aggregate, `${JSON.stringify(aggregate, null, 2)}\n`);
  const rollouts = aggregate.reduce((total, agent) => total + (agent.rollout_metrics.num_samples ?? 0), 0);
  return { paths, rollouts, failures: progress.failures, aggregate };
}

/** Pass 1 over the input: every bad line, all reported together before any work. */
async function checkInput(options: CollectOptions, planner: RowPlanner): Promise<void> {
  const issues: RowIssue[] = [];
  let count = 0;
  for await (const { line, text } of readJsonLines(options.input, options.signal)) {
    if (options.limit !== undefined && line > options.limit) break;
    for (const issue of planner.check(line, text)) {
      count += 1;
      if (issues.length < MAX_REPORTED_ISSUES) issues.push(issue);
    }
  }
  if (count > 0) throw new InvalidInputError(issues, MAX_REPORTED_ISSUES, count);
}

/** Pass 2: the planned rollouts, line by line. */
async function* plannedRows(options: CollectOptions, planner: RowPlanner): AsyncGenerator<MaterializedRow> {
  for await (const { line, text } of readJsonLines(options.input, options.signal)) {
    if (options.limit !== undefined && line > options.limit) break;
    yield* planner.expand(line, text);
  }
}

function configIdentity(options: CollectOptions): Record<string, unknown> {
  return { policy: options.policy.name, sampling: options.sampling, max_turns: options.maxTurns, max_seq_len: options.maxSeqLen, rollout_timeout_ms: options.rolloutTimeoutMs ?? null };
}

/** Writes the materialized inputs (hashing them: the run's identity), empties the result files, records the identity. */
async function startFresh(paths: ReturnType<typeof collectPaths>, planner: RowPlanner, options: CollectOptions): Promise<RunIdentity> {
  mkdirSync(dirname(paths.output), { recursive: true });
  // The old identity goes first: a crash while the new plan is written must not leave a resumable-looking run.
  rmSync(paths.run, { force: true });
  const hash = createHash('sha256');
  const file = createWriteStream(paths.materialized);
  let rollouts = 0;
  for await (const row of plannedRows(options, planner)) {
    const line = `${JSON.stringify(row)}\n`;
    hash.update(line);
    rollouts += 1;
    if (!file.write(line)) await once(file, 'drain');
  }
  file.end();
  await once(file, 'close');
  writeFileSync(paths.output, '');
  writeFileSync(paths.failures, '');
  const identity = { plan_sha256: hash.digest('hex'), rollouts, config: configIdentity(options) };
  writeFileSync(paths.run, `${JSON.stringify(identity, null, 2)}\n`);
  return identity;
}

/** Checks the plan and config are the run's, repairs lines a crash cut, and loads what was done. */
async function checkSameRun(paths: ReturnType<typeof collectPaths>, planner: RowPlanner, options: CollectOptions, state: ResumeState): Promise<RunIdentity> {
  const previous = JSON.parse(readFileSync(paths.run, 'utf8')) as RunIdentity;
  const hash = createHash('sha256');
  let rollouts = 0;
  for await (const row of plannedRows(options, planner)) {
    hash.update(`${JSON.stringify(row)}\n`);
    rollouts += 1;
  }
  if (previous.plan_sha256 !== hash.digest('hex')) {
    throw new ConfigError(`cannot resume ${paths.output}: the planned rollouts changed (${previous.rollouts} then, ${rollouts} now; input rows, --limit, --num-repeats, --set, --add-seed or the prompt config differ). Start a fresh run without --resume, or restore the original options.`);
  }
  if ((await fileSha256(paths.materialized)) !== previous.plan_sha256) {
    throw new ConfigError(`cannot resume ${paths.output}: ${paths.materialized} is not the plan the run recorded (cut short by a crash while it was written, or edited). Start a fresh run without --resume.`);
  }
  const config = configIdentity(options);
  const changed = Object.keys({ ...previous.config, ...config }).filter((key) => JSON.stringify(previous.config[key]) !== JSON.stringify(config[key]));
  if (changed.length > 0) {
    throw new ConfigError(`cannot resume ${paths.output}: ${changed.map((key) => `${key} was ${JSON.stringify(previous.config[key])}, now ${JSON.stringify(config[key])}`).join('; ')}`);
  }
  for (const [file, visit] of [[paths.output, (row: Record<string, unknown>) => state.addSuccess(row)], [paths.failures, (row: Record<string, unknown>) => state.addFailure(row)]] as const) {
    const { repairedBytes } = repairJsonl(file, visit);
    if (repairedBytes > 0) options.onNotice?.(`repaired ${file}: removed a last line cut by a crash (${repairedBytes} bytes)`);
  }
  return previous;
}

async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Rollouts read back from the materialized inputs (the source of truth), skipping what is done. */
async function* admit(materialized: string, planner: RowPlanner, state: ResumeState, options: CollectOptions, progress: CollectProgress): AsyncGenerator<{ row: MaterializedRow; agent: Agent }> {
  let givenUp = 0;
  let announced = false;
  for await (const { text } of readJsonLines(materialized)) {
    const planned = JSON.parse(text) as MaterializedRow;
    const decision = state.decide(planned, options.maxAttempts ?? 3);
    if (decision.kind !== 'run') {
      progress.done += 1;
      if (decision.kind === 'given-up') givenUp += 1;
      continue;
    }
    if (!announced && options.resume) {
      announced = true;
      options.onNotice?.(`resuming: ${state.done} done before, running the rest`);
    }
    const row = decision.attempt > 0 ? { ...planned, _ng_attempt_index: decision.attempt } : planned;
    yield { row, agent: planner.agent(row.agent_ref.name)! };
  }
  if (givenUp > 0) options.onNotice?.(`${givenUp} rollouts failed ${options.maxAttempts ?? 3} times (or terminally) and were not retried`);
}

function episodeOptions(options: CollectOptions): Omit<EpisodeOptions, 'environment'> {
  return {
    policy: options.policy,
    renderer: options.renderer,
    maxTurns: options.maxTurns,
    maxSeqLen: options.maxSeqLen,
    sampling: options.sampling,
    ...(options.rolloutTimeoutMs === undefined ? {} : { episodeTimeoutMs: options.rolloutTimeoutMs }),
  };
}

/**
 * At most `concurrency` items in flight, pulled lazily from `items`; stops pulling when `stop` fires.
 * If one item throws, no more are pulled, the others in flight still finish (their results are written
 * before the files close), and then the error is thrown.
 */
async function runPool<T>(items: AsyncIterator<T>, concurrency: number, stop: AbortSignal | undefined, work: (item: T) => Promise<void>): Promise<void> {
  let failed = false;
  const worker = async () => {
    while (!stop?.aborted && !failed) {
      const next = await items.next();
      if (next.done) return;
      try {
        await work(next.value);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: concurrency }, worker));
  const rejected = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (rejected) throw rejected.reason;
}

/** What is aggregated from a result row: its result fields and usage, not the task fields it echoes (an `answer` is not a metric). */
const RESULT_FIELDS = ['reward', 'terminated', 'truncated', 'num_turns', 'token_drift_count', 'has_training_tokens', 'extracted_answer', '_ng_task_index', '_ng_rollout_index'] as const;

function resultFields(row: ResultRow): ResultRow {
  const kept = Object.fromEntries(RESULT_FIELDS.filter((key) => key in row).map((key) => [key, row[key]]));
  return { ...kept, response: { usage: (row.response as { usage?: unknown } | undefined)?.usage } };
}

/**
 * NeMo Gym's aggregate per agent over every persisted success (earlier attempts included), with NeMo
 * RL's rollout metrics under their own key. Only the numbers are kept per row, never the messages.
 */
async function aggregateOutput(paths: ReturnType<typeof collectPaths>) {
  const perAgent = new Map<string, { rows: ResultRow[]; facts: RolloutFacts[]; succeeded: Set<number | string>; failed: Set<number | string>; expected: TaskCounter; answers: boolean }>();
  const entry = (agent: string) => {
    let found = perAgent.get(agent);
    if (!found) perAgent.set(agent, (found = { rows: [], facts: [], succeeded: new Set(), failed: new Set(), expected: new TaskCounter(), answers: false }));
    return found;
  };
  for await (const { text } of readJsonLines(paths.materialized)) {
    const row = JSON.parse(text) as MaterializedRow;
    entry(row.agent_ref.name).expected.increment(row._ng_task_index);
  }
  for await (const { text } of readJsonLines(paths.output)) {
    const row = JSON.parse(text) as ResultRow;
    const agent = entry((row.agent_ref as { name: string }).name);
    agent.rows.push(resultFields(row));
    agent.succeeded.add(compactKey(row));
    if ('extracted_answer' in row) agent.answers = true;
    // NeMo RL's metrics need gymnast's own records; rows from NeMo Gym agent servers have none.
    if (Array.isArray(row.messages) && row.termination !== undefined) agent.facts.push(rolloutFacts(recordFromOutputRow(row)));
  }
  for await (const { text } of readJsonLines(paths.failures)) {
    const row = JSON.parse(text) as ResultRow;
    entry((row.agent_ref as { name: string }).name).failed.add(compactKey(row));
  }
  // Environments that extract answers (math, arithmetic, calculator) also get majority@k and no_answer.
  // A rollout counts as failed once however many attempts it took, and not at all once one succeeded.
  return [...perAgent.entries()].map(([agent, { rows, facts, succeeded, failed, expected, answers }]) => ({
    ...aggregateMetrics(rows, { agent, expectedRollouts: { get: (task: number) => expected.get(task) || undefined }, ...(answers ? { answerKey: 'extracted_answer' } : {}) }),
    rollout_metrics: rolloutMetricsFromFacts(facts, [...failed].filter((key) => !succeeded.has(key)).length),
  }));
}

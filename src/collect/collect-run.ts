import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SamplingParams } from '../core/sampling-params.js';
import type { EpisodeOptions } from '../engine/index.js';
import { aggregateMetrics, rolloutMetrics, type AggregateMetrics, type ResultRow } from '../metrics/index.js';
import type { Policy } from '../policy/policy.js';
import type { ConversationRenderer } from '../tokens/conversation-renderer.js';
import { readJsonLines } from '../util/json-lines.js';
import { builtinAgent, type Agent } from './agent.js';
import { collectPaths } from './collect-paths.js';
import type { MaterializedRow } from './dataset-row.js';
import { expandRows, type NumRepeats, type SourceRow } from './expand-rows.js';
import { JsonlSink } from './jsonl-sink.js';
import { recordFromOutputRow } from './output-row.js';
import { applyPrompt, promptConflicts, type PromptConfig } from './prompt-config.js';
import { readInputRows } from './read-input.js';
import { repairJsonl, resumePlan } from './resume-state.js';
import { InvalidInputError, type RowIssue } from './row-error.js';
import { ConfigError } from '../core/errors/config-error.js';

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
  rollouts: number;
  failures: number;
  aggregate: (AggregateMetrics & { rollout_metrics: Record<string, number> })[];
}

interface PlannedRollout {
  row: MaterializedRow;
  agent: Agent;
}

/**
 * `gymnast collect`: validates every row before any work (all bad lines reported together, nothing
 * written), writes the materialized inputs, runs one episode per planned rollout under a concurrency
 * limit, appends each result as it ends (successes to the output, failures to the sidecar, never as
 * a reward of 0), then writes NeMo Gym's aggregate metrics over the successes.
 */
export async function collect(options: CollectOptions): Promise<CollectSummary> {
  const paths = collectPaths(options.output);
  const plan = await planRollouts(options);
  const identity = runIdentity(plan, options);
  const resuming = options.resume === true && existsSync(paths.run) && existsSync(paths.materialized);
  if (options.resume && !resuming) options.onNotice?.(`nothing to resume at ${paths.run}: starting a fresh run`);
  const remaining = resuming ? resumeFrom(paths, plan, identity, options) : startFresh(paths, plan, identity);
  const outputs = new JsonlSink(paths.output);
  const failures = new JsonlSink(paths.failures);
  const progress: CollectProgress = { done: plan.length - remaining.length, total: plan.length, failures: 0, rewardSum: 0 };
  try {
    const context = { episode: episodeOptions(options), ...(options.signal ? { signal: options.signal } : {}) };
    await runPool(remaining, options.concurrency, options.stopAdmitting ?? options.signal, async ({ item: { row: planned, agent }, attempt }) => {
      const row = attempt > 0 ? { ...planned, _ng_attempt_index: attempt } : planned;
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
  const aggregate = await aggregateOutput(paths.output, plan);
  writeFileSync(paths.aggregate, `${JSON.stringify(aggregate, null, 2)}\n`);
  return { paths, rollouts: progress.done - progress.failures, failures: progress.failures, aggregate };
}

interface RunIdentity {
  plan_sha256: string;
  rollouts: number;
  config: Record<string, unknown>;
}

/** What makes two runs the same run: the planned rows, and the settings that change what a rollout is. */
function runIdentity(plan: readonly PlannedRollout[], options: CollectOptions): RunIdentity {
  const hash = createHash('sha256');
  for (const { row } of plan) hash.update(`${JSON.stringify(row)}\n`);
  return {
    plan_sha256: hash.digest('hex'),
    rollouts: plan.length,
    config: { policy: options.policy.name, sampling: options.sampling, max_turns: options.maxTurns, max_seq_len: options.maxSeqLen, rollout_timeout_ms: options.rolloutTimeoutMs ?? null },
  };
}

function startFresh(paths: ReturnType<typeof collectPaths>, plan: readonly PlannedRollout[], identity: RunIdentity) {
  mkdirSync(dirname(paths.output), { recursive: true });
  writeFileSync(paths.materialized, plan.map(({ row }) => `${JSON.stringify(row)}\n`).join(''));
  writeFileSync(paths.output, '');
  writeFileSync(paths.failures, '');
  writeFileSync(paths.run, `${JSON.stringify(identity, null, 2)}\n`);
  return plan.map((item) => ({ item, attempt: 0 }));
}

/** Checks the run is the same one, repairs lines a crash cut, and returns what is left to run. */
function resumeFrom(paths: ReturnType<typeof collectPaths>, plan: readonly PlannedRollout[], identity: RunIdentity, options: CollectOptions) {
  const previous = JSON.parse(readFileSync(paths.run, 'utf8')) as RunIdentity;
  if (previous.plan_sha256 !== identity.plan_sha256) {
    throw new ConfigError(`cannot resume ${paths.output}: the planned rollouts changed (${previous.rollouts} then, ${identity.rollouts} now; input rows, --limit, --num-repeats, --set, --add-seed or the prompt config differ). Start a fresh run without --resume, or restore the original options.`);
  }
  const changed = Object.keys({ ...previous.config, ...identity.config }).filter((key) => JSON.stringify(previous.config[key]) !== JSON.stringify(identity.config[key]));
  if (changed.length > 0) {
    throw new ConfigError(`cannot resume ${paths.output}: ${changed.map((key) => `${key} was ${JSON.stringify(previous.config[key])}, now ${JSON.stringify(identity.config[key])}`).join('; ')}`);
  }
  const output = repairJsonl(paths.output);
  const failed = repairJsonl(paths.failures);
  for (const [file, repaired] of [[paths.output, output.repairedBytes], [paths.failures, failed.repairedBytes]] as const) {
    if (repaired > 0) options.onNotice?.(`repaired ${file}: removed a last line cut by a crash (${repaired} bytes)`);
  }
  const resumed = resumePlan(plan, output.rows, failed.rows, options.maxAttempts ?? 3);
  options.onNotice?.(`resuming: ${resumed.done} done, ${resumed.givenUp} failed for good, ${resumed.remaining.length} to run`);
  return resumed.remaining;
}

/** Reads, validates, templates and expands the input; throws `InvalidInputError` listing every bad row. */
async function planRollouts(options: CollectOptions): Promise<PlannedRollout[]> {
  const read = await readInputRows(options.input, { ...(options.limit === undefined ? {} : { limit: options.limit }), ...(options.signal ? { signal: options.signal } : {}) });
  const issues: RowIssue[] = [...read.issues];
  let sources: SourceRow[] = read.sources;
  if (options.promptConfig) {
    issues.push(...promptConflicts(sources, options.input));
    const config = options.promptConfig;
    sources = sources.flatMap((source) => {
      try {
        return [{ ...source, row: applyPrompt(source.row, config) }];
      } catch (error) {
        issues.push({ file: options.input, line: source.line, field: 'prompt', message: (error as Error).message });
        return [];
      }
    });
  }
  const agents = new Map<string, Agent>();
  for (const source of sources) {
    const name = source.row.agent_ref?.name ?? options.agent;
    if (name === undefined) continue;
    const agent = agents.get(name) ?? options.agents?.get(name) ?? builtinAgent(name);
    if (!agent) {
      issues.push({ file: options.input, line: source.line, field: 'agent_ref.name', message: `unknown agent "${name}" (built-in agents: math, sliding-puzzle, calculator, arithmetic)` });
      continue;
    }
    agents.set(name, agent);
    const trial = agent.check({ ...source.row, responses_create_params: source.row.responses_create_params ?? {}, agent_ref: { name }, _ng_task_index: 0, _ng_rollout_index: 0 });
    issues.push(...trial.map((issue) => ({ ...issue, file: options.input, line: source.line })));
  }
  const expansion = expandRows(sources, {
    file: options.input,
    ...(options.agent ? { agent: options.agent } : {}),
    ...(options.numRepeats === undefined ? {} : { numRepeats: options.numRepeats }),
    ...(options.addSeed ? { addSeed: true } : {}),
    ...(options.overrides ? { overrides: options.overrides } : {}),
  });
  issues.push(...expansion.issues);
  if (issues.length > 0) throw new InvalidInputError(issues.sort((a, b) => a.line - b.line));
  return expansion.rows.map((row) => ({ row, agent: agents.get(row.agent_ref.name)! }));
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

async function runPool<T>(items: readonly T[], concurrency: number, signal: AbortSignal | undefined, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal?.aborted) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/** What is aggregated from a result row: its result fields and usage, not the task fields it echoes (an `answer` is not a metric). */
const RESULT_FIELDS = ['reward', 'terminated', 'truncated', 'num_turns', 'token_drift_count', 'has_training_tokens', '_ng_task_index', '_ng_rollout_index'] as const;

function resultFields(row: ResultRow): ResultRow {
  const kept = Object.fromEntries(RESULT_FIELDS.filter((key) => key in row).map((key) => [key, row[key]]));
  return { ...kept, response: { usage: (row.response as { usage?: unknown } | undefined)?.usage } };
}

/** NeMo Gym's aggregate per agent over the persisted successes, with NeMo RL's rollout metrics under their own key. */
async function aggregateOutput(output: string, plan: readonly PlannedRollout[]) {
  const rows: ResultRow[] = [];
  for await (const { text } of readJsonLines(output)) rows.push(JSON.parse(text) as ResultRow);
  const agents = [...new Set(plan.map(({ row }) => row.agent_ref.name))];
  return agents.map((agent) => {
    const mine = rows.filter((row) => (row.agent_ref as { name: string }).name === agent);
    const expectedRollouts = new Map<number, number>();
    for (const { row } of plan) if (row.agent_ref.name === agent) expectedRollouts.set(row._ng_task_index, (expectedRollouts.get(row._ng_task_index) ?? 0) + 1);
    // NeMo RL's metrics need gymnast's own records; rows from NeMo Gym agent servers have none.
    const records = mine.filter((row) => Array.isArray(row.messages) && row.termination !== undefined).map(recordFromOutputRow);
    const stripped = mine.map(resultFields);
    return { ...aggregateMetrics(stripped, { agent, expectedRollouts }), rollout_metrics: rolloutMetrics(records) };
  });
}

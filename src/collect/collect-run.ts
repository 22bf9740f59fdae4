import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { EpisodeTask } from '../core/episode-task.js';
import type { SamplingParams } from '../core/sampling-params.js';
import { runEpisode, type EpisodeOptions } from '../engine/index.js';
import { aggregateMetrics, rolloutMetrics, type AggregateMetrics, type ResultRow } from '../metrics/index.js';
import type { Policy } from '../policy/policy.js';
import type { ConversationRenderer } from '../tokens/conversation-renderer.js';
import { readJsonLines } from '../util/json-lines.js';
import { builtinAgent, type Agent } from './agent.js';
import { collectPaths } from './collect-paths.js';
import type { MaterializedRow } from './dataset-row.js';
import { expandRows, type NumRepeats, type SourceRow } from './expand-rows.js';
import { JsonlSink } from './jsonl-sink.js';
import { outputRow, recordFromOutputRow } from './output-row.js';
import { applyPrompt, promptConflicts, type PromptConfig } from './prompt-config.js';
import { readInputRows } from './read-input.js';
import { InvalidInputError, type RowIssue } from './row-error.js';

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
  signal?: AbortSignal;
  onProgress?: (progress: CollectProgress) => void;
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
  task: EpisodeTask;
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
  mkdirSync(dirname(options.output), { recursive: true });
  writeFileSync(paths.materialized, plan.map(({ row }) => `${JSON.stringify(row)}\n`).join(''));
  const outputs = new JsonlSink(paths.output, { truncate: true });
  const failures = new JsonlSink(paths.failures, { truncate: true });
  const progress: CollectProgress = { done: 0, total: plan.length, failures: 0, rewardSum: 0 };
  try {
    await runPool(plan, options.concurrency, options.signal, async ({ row, agent, task }) => {
      const record = await runEpisode(task, row._ng_rollout_index, episodeOptions(options, agent), options.signal ? { signal: options.signal } : {});
      (record.record_type === 'rollout' ? outputs : failures).write(outputRow(row, record, task.messages.length));
      progress.done += 1;
      if (record.record_type === 'rollout') progress.rewardSum += record.reward;
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
    const agent = agents.get(name) ?? builtinAgent(name);
    if (!agent) {
      issues.push({ file: options.input, line: source.line, field: 'agent_ref.name', message: `unknown agent "${name}" (built-in agents: math, sliding-puzzle, calculator, arithmetic)` });
      continue;
    }
    agents.set(name, agent);
    const trial = agent.toTask({ ...source.row, responses_create_params: source.row.responses_create_params ?? {}, agent_ref: { name }, _ng_task_index: 0, _ng_rollout_index: 0 });
    if (Array.isArray(trial)) issues.push(...trial.map((issue) => ({ ...issue, file: options.input, line: source.line })));
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
  // Every row converted cleanly above, so each is a task here.
  return expansion.rows.map((row) => {
    const agent = agents.get(row.agent_ref.name)!;
    return { row, agent, task: agent.toTask(row) as EpisodeTask };
  });
}

function episodeOptions(options: CollectOptions, agent: Agent): EpisodeOptions {
  return {
    policy: options.policy,
    environment: agent.environment,
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
    const records = mine.map(recordFromOutputRow);
    const stripped = mine.map(resultFields);
    return { ...aggregateMetrics(stripped, { agent, expectedRollouts }), rollout_metrics: rolloutMetrics(records) };
  });
}

import { z } from 'zod';
import { EpisodeTask } from '../core/episode-task.js';
import { ConfigError } from '../core/errors/config-error.js';
import type { SamplingOverrides } from '../core/sampling-params.js';
import { runEpisode, type EpisodeOptions, type JobControl } from '../engine/index.js';
import type { Environment } from '../environments/environment.js';
import type { AggregateMetrics } from './aggregate-metrics.js';
import { findEnvironment } from '../environments/registry.js';
import { parseWithIssues, schemaIssues, showValue } from '../core/schema-issues.js';
import { responsesInputToMessages, responsesToolsToChatTools } from '../core/responses-items.js';
import type { MaterializedRow } from '../core/result-row.js';
import { episodeOutcome, type EpisodeOutcomeOptions } from './output-row.js';
import { plainRequest } from './plain-request.fast.js';
import { extraBodyObject, RequestFields } from './request-fields.js';
import type { RowIssue } from './row-error.js';
import type { RolloutOutcome } from './sink.js';
import { extensibleCopy } from '../util/extensible-copy.js';

/** What every rollout of a run shares, and how the schedule drives this one. */
export interface AgentContext {
  episode: Omit<EpisodeOptions, 'environment'>;
  control: JobControl;
}

/** Who runs a row: a built-in environment's episode loop, or a NeMo Gym agent server. */
export interface Agent {
  name: string;
  /** What keeps a row from running, reported with every other bad row before any work. */
  check(row: MaterializedRow): RowIssue[];
  /** Never rejects for a failed rollout: that is a failure outcome. */
  run(row: MaterializedRow, context: AgentContext): Promise<RolloutOutcome>;
  /**
   * NeMo Gym's aggregate metrics from the agent's server (`POST /aggregate_metrics` with the persisted
   * successes, stripped), or undefined when the server has none (404): gymnast computes them then.
   */
  aggregateMetrics?(verifyResponses: readonly Record<string, unknown>[], signal?: AbortSignal): Promise<AggregateMetrics | undefined>;
}

/** `stop_strings` is NeMo RL's per-sample field beside the environment's info, not in it (000 rollouts.py: `batch["stop_strings"]`). */
const NON_TASK_FIELDS = new Set([
  'responses_create_params',
  'agent_ref',
  '_ng_task_index',
  '_ng_rollout_index',
  '_ng_attempt_index',
  '_ng_rollout_id',
  'stop_strings',
]);

/** A row's `stop_strings`: NeMo RL's per-sample stop strings for the first turn, or null for none. */
const RowStopStrings = z.array(z.string()).nullable();

/**
 * The episode loop over a built-in environment (the NeMo RL-style loop; tool-calling and gymnasium
 * environments run in it too). Rows become tasks with `rowToTask`.
 */
export function builtinAgent(name: string): Agent | undefined {
  const entry = findEnvironment(name);
  return entry ? environmentAgent(name, entry.create()) : undefined;
}

export interface EnvironmentAgentOptions extends EpisodeOutcomeOptions {
  /**
   * Hand the environment the whole materialized row (request, agent, keys and task fields), as NeMo
   * Gym's agents send it to its servers; by default it gets the task fields only.
   */
  wholeRow?: boolean;
}

/** gymnast's episode loop over an environment: each row is a task (`rowToTask`), each rollout an episode. */
export function environmentAgent(name: string, environment: Environment, options: EnvironmentAgentOptions = {}): Agent {
  const dataOf = (row: MaterializedRow) => (options.wholeRow ? row : taskData(row));
  const outcome = options.responseOutput ? { responseOutput: options.responseOutput } : {};
  // A run hands every rollout the same episode options: they are completed with the environment once, not per episode in flight.
  let shared: { from: AgentContext['episode']; options: EpisodeOptions } | undefined;
  const episodeOptions = (episode: AgentContext['episode']) => {
    if (shared?.from !== episode) shared = { from: episode, options: extensibleCopy(episode, { environment }) };
    return shared.options;
  };
  return {
    name,
    check: (row) => {
      const data = dataOf(row);
      const task = taskOf(row, data);
      const prompt = Array.isArray(task) || environment.opensConversation ? [] : emptyPromptIssues(row.responses_create_params.input);
      return [...(Array.isArray(task) ? task : []), ...prompt, ...taskDataIssues(environment, data)];
    },
    // Not an async function: the episode is awaited by the caller alone (an async frame per episode in flight is memory, issue 26).
    run(row, context) {
      try {
        const task = checkedTask(row, dataOf(row));
        return runEpisode(task, row._ng_rollout_index, episodeOptions(context.episode), context.control).then((record) =>
          episodeOutcome(row, record, task.messages.length, outcome),
        );
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
}

/** The task of a row that passed `check`, with `data` for the environment; a row changed since is a config error, never a guess. */
function checkedTask(row: MaterializedRow, data: unknown): EpisodeTask {
  const task = taskOf(row, data);
  if (!Array.isArray(task)) return task;
  throw new ConfigError(`rollout ${row._ng_task_index}:${row._ng_rollout_index}: ${task.map((issue) => `${issue.field}: ${issue.message}`).join('; ')}`);
}

/** An empty prompt (`[]`, blank text) gives the policy nothing to answer: `[]` failed every rollout of its row at run time, and blank text sampled from nothing. */
function emptyPromptIssues(input: unknown): RowIssue[] {
  const empty = typeof input === 'string' ? input.trim() === '' : Array.isArray(input) && input.length === 0;
  return empty
    ? [{ file: '', line: 0, field: 'responses_create_params.input', message: `expected a prompt (text, or at least one message), got ${showValue(input)}` }]
    : [];
}

/** What the environment's declared task fields say about a row's task data (see `Environment.taskSchema`). */
function taskDataIssues(environment: Environment, data: unknown): RowIssue[] {
  if (!environment.taskSchema) return [];
  return schemaIssues(environment.taskSchema, data).map(({ field, message }) => ({ file: '', line: 0, field, message }));
}

/**
 * A row as an episode task: its Responses-API input and tools become the opening messages and tools,
 * its sampling fields override the run's, its seed (`seed`, else the one in `metadata.extra_body`)
 * reaches the policy, its `stop_strings` (NeMo RL's per-sample field) end the first turn's generation,
 * and every other field is the environment's task data. Issues carry the field; the planner adds file and line.
 */
export function rowToTask(row: MaterializedRow): EpisodeTask | RowIssue[] {
  return taskOf(row, taskData(row));
}

/** `rowToTask` with the environment's `data`; a plain request (the common shape) is read by hand, any other by the schema. */
function taskOf(row: MaterializedRow, data: unknown): EpisodeTask | RowIssue[] {
  const task = requestTaskOf(row, data);
  if (row.stop_strings === undefined) return task;
  const stops = parseWithIssues(RowStopStrings, row.stop_strings);
  if ('issues' in stops)
    return [
      ...(Array.isArray(task) ? task : []),
      ...stops.issues.map(({ field, message }) => ({ file: '', line: 0, field: `stop_strings${field ? `.${field}` : ''}`, message })),
    ];
  return Array.isArray(task) || !stops.data ? task : { ...task, stop_strings: stops.data };
}

function requestTaskOf(row: MaterializedRow, data: unknown): EpisodeTask | RowIssue[] {
  const plain = plainRequest(row.responses_create_params);
  if (plain) return requestToTask(row, plain, data, Number.isSafeInteger(row._ng_task_index) && row._ng_task_index >= 0);
  const parsed = parseWithIssues(RequestFields, row.responses_create_params);
  if ('issues' in parsed)
    return parsed.issues.map(({ field, message }) => ({ file: '', line: 0, field: `responses_create_params${field ? `.${field}` : ''}`, message }));
  return requestToTask(row, parsed.data, data, false);
}

/** `plain`: the request and index are known to make a task `EpisodeTask` returns unchanged (see `plainRequest`), so it is not parsed again. */
function requestToTask(row: MaterializedRow, request: RequestFields, data: unknown, plain: boolean): EpisodeTask | RowIssue[] {
  if (request.input === undefined) return [{ file: '', line: 0, field: 'responses_create_params.input', message: 'missing: the row has no prompt' }];
  const seed = request.seed ?? extraBodySeed(request.metadata?.extra_body);
  const sampling: SamplingOverrides = {
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.top_p === undefined ? {} : { top_p: request.top_p }),
    ...(request.max_output_tokens === undefined ? {} : { max_tokens: request.max_output_tokens }),
    ...(seed === undefined ? {} : { seed }),
  };
  const task: EpisodeTask = {
    id: `${row._ng_task_index}`,
    index: row._ng_task_index,
    messages: responsesInputToMessages(request.input),
    ...(request.tools ? { tools: responsesToolsToChatTools(request.tools) } : {}),
    data,
    ...(Object.keys(sampling).length > 0 ? { sampling } : {}),
  };
  return plain ? task : EpisodeTask.parse(task);
}

/** Every field of a row but the request and the keys: what the environment reads. */
function taskData(row: MaterializedRow): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).filter(([key]) => !NON_TASK_FIELDS.has(key)));
}

function extraBodySeed(extraBody: string | undefined): number | undefined {
  const seed = extraBody === undefined ? undefined : extraBodyObject(extraBody)?.seed;
  return typeof seed === 'number' ? seed : undefined;
}

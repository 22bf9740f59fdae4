import { EpisodeTask } from '../core/episode-task.js';
import { ConfigError } from '../core/errors/config-error.js';
import { SamplingOverrides } from '../core/sampling-params.js';
import { runEpisode, type EpisodeOptions, type JobControl } from '../engine/index.js';
import type { Environment } from '../environments/environment.js';
import type { AggregateMetrics } from './server-aggregate.js';
import { findEnvironment } from '../environments/registry.js';
import { parseWithIssues, schemaIssues } from '../core/schema-issues.js';
import { ResponsesItem, ResponsesTool, responsesInputToMessages, responsesToolsToChatTools } from '../core/responses-items.js';
import { z } from 'zod';
import type { MaterializedRow } from '../core/result-row.js';
import { episodeOutcome, type EpisodeOutcomeOptions } from './output-row.js';
import type { RowIssue } from './row-error.js';
import type { RolloutOutcome } from './sink.js';

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

const sampling = SamplingOverrides.shape;

/** NeMo Gym's per-request engine extras: a JSON object as text, whose `seed`, when given, is a whole number. */
const ExtraBody = z.string().refine((text) => extraBodyObject(text) !== undefined, { error: 'expected a JSON object as text, e.g. "{\\"seed\\": 1}"' }).refine((text) => {
  const seed = extraBodyObject(text)?.seed;
  return seed === undefined || Number.isInteger(seed);
}, { error: 'expected its seed to be a whole number' });

/** The request fields a row's episode reads; the sampling ones are held to the run's own ranges (SamplingParams). */
const RequestFields = z
  .object({
    input: z.union([z.string(), z.array(ResponsesItem)]).optional(),
    tools: z.array(ResponsesTool).optional(),
    temperature: sampling.temperature,
    top_p: sampling.top_p,
    max_output_tokens: sampling.max_tokens,
    metadata: z.object({ extra_body: ExtraBody.optional() }).passthrough().nullable().optional(),
  })
  .passthrough();
type RequestFields = z.infer<typeof RequestFields>;

const NON_TASK_FIELDS = new Set(['responses_create_params', 'agent_ref', '_ng_task_index', '_ng_rollout_index', '_ng_attempt_index', '_ng_rollout_id']);

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
  return {
    name,
    check: (row) => {
      const task = rowToTask(row);
      return [...(Array.isArray(task) ? task : []), ...taskDataIssues(environment, dataOf(row))];
    },
    async run(row, context) {
      const task = checkedTask(row, dataOf(row));
      const record = await runEpisode(task, row._ng_rollout_index, { ...context.episode, environment }, context.control);
      return episodeOutcome(row, record, task.messages.length, outcome);
    },
  };
}

/**
 * The task of a row that passed `check`, with `data` for the environment; a row changed since is a
 * config error, never a guess. Read once per rollout, so its request is parsed without the wording of
 * issues (`rowToTask` words them only when a row fails, which a checked one does not).
 */
function checkedTask(row: MaterializedRow, data: unknown): EpisodeTask {
  const request = RequestFields.safeParse(row.responses_create_params);
  const task = request.success ? requestToTask(row, request.data, data) : rowToTask(row);
  if (!Array.isArray(task)) return task;
  throw new ConfigError(`rollout ${row._ng_task_index}:${row._ng_rollout_index}: ${task.map((issue) => `${issue.field}: ${issue.message}`).join('; ')}`);
}

/** What the environment's declared task fields say about a row's task data (see `Environment.taskSchema`). */
function taskDataIssues(environment: Environment, data: unknown): RowIssue[] {
  if (!environment.taskSchema) return [];
  return schemaIssues(environment.taskSchema, data).map(({ field, message }) => ({ file: '', line: 0, field, message }));
}

/**
 * A row as an episode task: its Responses-API input and tools become the opening messages and tools,
 * its sampling fields override the run's, a seed in `metadata.extra_body` reaches the policy, and every
 * other field is the environment's task data. Issues carry the field; the planner adds file and line.
 */
export function rowToTask(row: MaterializedRow): EpisodeTask | RowIssue[] {
  const parsed = parseWithIssues(RequestFields, row.responses_create_params);
  if ('issues' in parsed) return parsed.issues.map(({ field, message }) => ({ file: '', line: 0, field: `responses_create_params${field ? `.${field}` : ''}`, message }));
  return requestToTask(row, parsed.data, taskData(row));
}

function requestToTask(row: MaterializedRow, request: RequestFields, data: unknown): EpisodeTask | RowIssue[] {
  if (request.input === undefined) return [{ file: '', line: 0, field: 'responses_create_params.input', message: 'missing: the row has no prompt' }];
  const seed = extraBodySeed(request.metadata?.extra_body);
  const sampling: SamplingOverrides = {
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.top_p === undefined ? {} : { top_p: request.top_p }),
    ...(request.max_output_tokens === undefined ? {} : { max_tokens: request.max_output_tokens }),
    ...(seed === undefined ? {} : { seed }),
  };
  return EpisodeTask.parse({
    id: `${row._ng_task_index}`,
    index: row._ng_task_index,
    messages: responsesInputToMessages(request.input),
    ...(request.tools ? { tools: responsesToolsToChatTools(request.tools) } : {}),
    data,
    ...(Object.keys(sampling).length > 0 ? { sampling } : {}),
  });
}

/** Every field of a row but the request and the keys: what the environment reads. */
function taskData(row: MaterializedRow): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).filter(([key]) => !NON_TASK_FIELDS.has(key)));
}

function extraBodySeed(extraBody: string | undefined): number | undefined {
  const seed = extraBody === undefined ? undefined : extraBodyObject(extraBody)?.seed;
  return typeof seed === 'number' ? seed : undefined;
}

function extraBodyObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

import { z } from 'zod';
import type { Agent, AgentContext } from '../../collect/agent.js';
import { aggregateRows } from '../../collect/aggregate-rows.js';
import { failureFields } from '../../collect/output-row.js';
import { DurationMs } from '../../core/duration.js';
import { ConfigError } from '../../core/errors/config-error.js';
import { GymnastError } from '../../core/errors/gymnast-error.js';
import { InvalidRowError } from '../../core/errors/invalid-row-error.js';
import { recordError } from '../../core/recorded-error.js';
import { MaterializedRow, ROW_SCHEMA_VERSION } from '../../core/result-row.js';
import { parseWithIssues } from '../../core/schema-issues.js';
import { deadlineSignal } from '../../util/deadline-signal.js';
import type { ListenOptions } from '../http-server/http-server-core.js';
import { JsonServer, type JsonReply, type JsonRequest } from '../http-server/json-server.js';
import { RunSlots } from './run-slots.js';

export const AgentServerSettings = z.object({
  /** Rollouts running at once; more `/run` requests wait in a queue (default 32). */
  concurrency: z.number().int().min(1).max(100_000).default(32),
  /** Requests allowed to wait for a slot; beyond them `/run` answers 503 (default 10,000). */
  maxQueued: z.number().int().min(0).max(1_000_000).default(10_000),
  /** Deadline of one `/run`, its wait for a slot included (default 600 s, NeMo Gym's own `/run` budget). */
  runTimeoutMs: DurationMs.default(600_000),
});
export type AgentServerSettings = z.input<typeof AgentServerSettings>;

export interface AgentServerOptions extends ListenOptions, AgentServerSettings {
  /** Who runs a row: `builtinAgent(name)` for a built-in environment. */
  agent: Agent;
  /** The policy, renderer and limits every rollout shares (the deadline is the server's). */
  episode: Omit<AgentContext['episode'], 'episodeTimeoutMs'>;
  /** When set, every request must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  maxBodyBytes?: number;
}

const AggregateRequest = z.looseObject({ verify_responses: z.array(z.unknown()) });

/** Field names remembered as the task's; bounded so odd clients cannot grow the set without end. */
const MAX_TASK_FIELDS = 1024;

/**
 * gymnast's episode loop as a NeMo Gym agent server, so NeMo Gym's `ng_collect_rollouts` (or anything
 * speaking its protocol) can drive it: `POST /run` takes one materialized row and answers its verify
 * response (the result row with gymnast's token fields), `POST /aggregate_metrics` answers NeMo Gym's
 * `AggregateMetrics` for the rows a collector sends back: its resources server's, when the agent drives
 * one over HTTP (as NeMo Gym's agents ask it), else gymnast's metrics.
 */
export class AgentServer {
  readonly #server: JsonServer;
  readonly #agent: Agent;
  readonly #episode: AgentServerOptions['episode'];
  readonly #settings: z.output<typeof AgentServerSettings>;
  readonly #slots: RunSlots;
  /** Names of the task fields of rows run here: echoed in results, but not metrics (as `gymnast aggregate` reads them from the materialized inputs). */
  readonly #taskFields = new Set<string>();

  constructor(options: AgentServerOptions) {
    this.#agent = options.agent;
    this.#episode = options.episode;
    this.#settings = agentServerSettings(options);
    this.#slots = new RunSlots(this.#settings.concurrency, this.#settings.maxQueued);
    this.#server = new JsonServer({
      ...(options.host === undefined ? {} : { host: options.host }),
      ...(options.port === undefined ? {} : { port: options.port }),
      ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
      ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
      routes: {
        'POST /run': (request) => this.#run(request),
        'POST /aggregate_metrics': (request) => this.#aggregate(request),
      },
    });
  }

  start(): Promise<string> {
    return this.#server.start();
  }

  get url(): string {
    return this.#server.url;
  }

  /** Rollouts running and waiting now. */
  get load(): { running: number; queued: number } {
    return { running: this.#slots.held, queued: this.#slots.queued };
  }

  close(): Promise<void> {
    return this.#server.close();
  }

  /**
   * One rollout. A failed rollout is answered 200 with `_ng_failure_class`: NeMo Gym's collector
   * routes such rows to its failures file, while any non-2xx makes it raise and end the whole
   * collection (at HEAD), so a status would turn one lost rollout into a lost run.
   */
  async #run({ body, signal }: JsonRequest): Promise<JsonReply> {
    const started = performance.now();
    const parsed = parseWithIssues(MaterializedRow, body);
    if ('issues' in parsed) return badRequest(parsed.issues);
    const row = parsed.data;
    const issues = this.#agent.check(row);
    if (issues.length > 0) return badRequest(issues);
    const deadline = deadlineSignal(signal, this.#settings.runTimeoutMs);
    try {
      const slot = await this.#slots.acquire(deadline.signal);
      // Queueing rather than refusing: NeMo Gym's collector sends every row at once when its own bound is unset, and raises on a 503.
      if ('kind' in slot && slot.kind === 'queue-full')
        return {
          status: 503,
          body: { error: { message: `over ${this.#settings.maxQueued} rollouts are waiting; retry later`, code: 503 } },
          headers: { 'retry-after': '1' },
        };
      if ('kind' in slot) return { status: 200, body: this.#failure(row, slot.reason, started) };
      try {
        this.#rememberTaskFields(row);
        const remainingMs = Math.max(1, this.#settings.runTimeoutMs - (performance.now() - started));
        // The client's signal, not the deadline's: a deadline ends the episode as a `timeout` failure, a hang-up as `aborted`.
        const outcome = await this.#agent.run(row, { episode: { ...this.#episode, episodeTimeoutMs: remainingMs }, control: { signal } });
        // The whole row, every message with its ids (a version 3 row may keep them there): NeMo Gym's client and NeMo RL
        // read response.output, unchanged, and a gymnast of any version reads the messages; `collect` stores them once.
        return { status: 200, body: outcome.row };
      } finally {
        slot.release();
      }
    } finally {
      deadline.dispose();
    }
  }

  async #aggregate({ body, signal }: JsonRequest): Promise<JsonReply> {
    const parsed = parseWithIssues(AggregateRequest, body);
    if ('issues' in parsed) return badRequest(parsed.issues);
    const forwarded = await this.#forwardAggregate(parsed.data.verify_responses as Record<string, unknown>[], signal);
    if (forwarded) return forwarded;
    try {
      const { agent_ref: _agent, ...metrics } = aggregateRows(parsed.data.verify_responses, { agent: this.#agent.name, taskFields: this.#taskFields });
      return { status: 200, body: metrics };
    } catch (error) {
      if (error instanceof InvalidRowError) return badRequest([{ field: error.field ? `${error.where}.${error.field}` : error.where, message: error.reason }]);
      throw error;
    }
  }

  /**
   * The resources server's own `/aggregate_metrics`, as NeMo Gym's `simple_agent` and `gymnasium_agent`
   * proxy it: a server's metrics of its own (mcqa's, a judge's) are its to compute. Undefined when the
   * agent runs a built-in environment in-process, or its server has no such endpoint (404): gymnast's
   * own aggregate then. A server that fails is a 502 naming it, as NeMo Gym's agent fails with it.
   */
  async #forwardAggregate(verifyResponses: readonly Record<string, unknown>[], signal: AbortSignal): Promise<JsonReply | undefined> {
    if (!this.#agent.aggregateMetrics) return undefined;
    try {
      const metrics = await this.#agent.aggregateMetrics(verifyResponses, signal);
      return metrics && { status: 200, body: metrics };
    } catch (error) {
      if (!GymnastError.isInstance(error) || signal.aborted) throw error;
      return { status: 502, body: { error: { message: `the resources server's /aggregate_metrics failed: ${error.message}`, code: 502 } } };
    }
  }

  /** A row that waited past its deadline or lost its client before it ran. */
  #failure(row: MaterializedRow, reason: unknown, started: number) {
    const timedOut = reason instanceof DOMException && reason.name === 'TimeoutError';
    return {
      ...row,
      schema_version: ROW_SCHEMA_VERSION,
      duration_ms: performance.now() - started,
      ...failureFields(timedOut ? 'timeout' : 'aborted', recordError(reason)),
    };
  }

  #rememberTaskFields(row: MaterializedRow): void {
    for (const name of Object.keys(row)) {
      if (this.#taskFields.size >= MAX_TASK_FIELDS) return;
      if (name !== 'responses_create_params' && name !== 'agent_ref' && !name.startsWith('_ng_')) this.#taskFields.add(name);
    }
  }
}

/** 400 naming every bad field; `field` is the first, for clients that read one. */
function badRequest(issues: readonly { field: string; message: string }[]): JsonReply {
  const message = issues.map((issue) => (issue.field ? `${issue.field}: ${issue.message}` : issue.message)).join('; ');
  return {
    status: 400,
    body: { error: { message, code: 400, field: issues[0]?.field ?? '', issues: issues.map(({ field, message }) => ({ field, message })) } },
  };
}

/** The settings checked, or a ConfigError naming every one out of range (`runTimeoutMs: expected at most a day …`). */
function agentServerSettings(options: AgentServerSettings): z.output<typeof AgentServerSettings> {
  const parsed = parseWithIssues(AgentServerSettings, options);
  if ('data' in parsed) return parsed.data;
  throw new ConfigError(`invalid agent server settings: ${parsed.issues.map((issue) => `${issue.field}: ${issue.message}`).join('; ')}`);
}

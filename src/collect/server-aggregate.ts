import { GymnastError } from '../core/errors/gymnast-error.js';
import { hasKind } from '../core/errors/has-kind.js';
import type { AgentAggregate } from '../metrics/index.js';
import type { Agent } from './agent.js';
import type { AggregateMetrics } from './aggregate-metrics.js';
import { jsonRows } from './result-files.js';

/** What the aggregate file holds per agent: gymnast's aggregate, or NeMo Gym's three fields from the agent's server. */
export type CollectedAggregate = Omit<AgentAggregate, 'agent_metrics' | 'key_metrics' | 'group_level_metrics'> & {
  agent_metrics: Record<string, unknown>;
  key_metrics: Record<string, unknown>;
  group_level_metrics: Iterable<unknown>;
  /** Who computed `agent_metrics`, `key_metrics` and `group_level_metrics`: the agent's server, or gymnast (absent outside collect). */
  computed_by?: 'server' | 'gymnast';
};

/**
 * Fields NeMo Gym strips before `/aggregate_metrics` (it keeps `response.usage` only), and gymnast's
 * record fields, which are large and no metric; gymnast's bookkeeping numbers would become metric
 * columns on the server, which gymnast's own aggregate leaves out.
 */
const STRIPPED: ReadonlySet<string> = new Set([
  'responses_create_params',
  'ng_agent_observations',
  'ng_model_call_capture',
  'ng_trajectory',
  'messages',
  'turns',
  'env_metadata',
  'terminal_env_metadata',
  'sampling',
  'termination',
  'schema_version',
  'duration_ms',
  'started_at',
]);

/** A persisted success as NeMo Gym sends it in `verify_responses`. */
export function strippedForAggregate(row: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const kept = Object.fromEntries(Object.entries(row).filter(([key]) => !STRIPPED.has(key) && key !== 'response'));
  const usage = (row.response as { usage?: unknown } | undefined)?.usage;
  return { ...kept, response: usage === undefined ? {} : { usage } };
}

/** A server's `/aggregate_metrics`, or undefined when it has none (404): the caller computes them then. */
export async function unlessNotFound(ask: () => Promise<AggregateMetrics>): Promise<AggregateMetrics | undefined> {
  try {
    return await ask();
  } catch (error) {
    if (hasKind(error, 'server') && error.status === 404) return undefined;
    throw error;
  }
}

export interface ServerAggregateOptions {
  signal?: AbortSignal;
  onNotice?: (message: string) => void;
}

/**
 * Each agent's aggregate from its server's `/aggregate_metrics` when it has one (NeMo Gym's collector
 * asks the agent, which asks its resources server), over the persisted successes in `output`, stripped
 * and in key order; gymnast's own otherwise (no such endpoint, or it failed: said in a notice). Every
 * aggregate says which it is (`computed_by`); gymnast's `rollout_metrics` are kept either way.
 */
export async function withServerAggregates(
  aggregates: readonly AgentAggregate[],
  agents: ReadonlyMap<string, Agent>,
  output: string,
  options: ServerAggregateOptions = {},
): Promise<CollectedAggregate[]> {
  const collected: CollectedAggregate[] = [];
  for (const aggregate of aggregates) {
    const name = aggregate.agent_ref.name;
    const agent = agents.get(name);
    const rows = agent?.aggregateMetrics ? await persistedSuccesses(output, name, options.signal) : [];
    const server = rows.length > 0 ? await askServer(agent!, rows, options) : undefined;
    collected.push(server ? { ...aggregate, ...pick(server), computed_by: 'server' } : { ...aggregate, computed_by: 'gymnast' });
  }
  return collected;
}

async function askServer(agent: Agent, rows: readonly Record<string, unknown>[], options: ServerAggregateOptions): Promise<AggregateMetrics | undefined> {
  try {
    const metrics = await agent.aggregateMetrics!(rows, options.signal);
    options.onNotice?.(
      metrics
        ? `${agent.name}: aggregate metrics computed by its server's /aggregate_metrics`
        : `${agent.name}: its server has no /aggregate_metrics (404): gymnast computed the aggregate metrics`,
    );
    return metrics;
  } catch (error) {
    if (!GymnastError.isInstance(error) || options.signal?.aborted) throw error;
    options.onNotice?.(`${agent.name}: its server's /aggregate_metrics failed (${error.message}): gymnast computed the aggregate metrics`);
    return undefined;
  }
}

function pick(server: AggregateMetrics): Pick<CollectedAggregate, 'agent_metrics' | 'key_metrics' | 'group_level_metrics'> {
  return { agent_metrics: server.agent_metrics, key_metrics: server.key_metrics, group_level_metrics: server.group_level_metrics };
}

/** The agent's successes in the output file (earlier runs of a resumed one included), stripped, by (task, rollout). */
async function persistedSuccesses(output: string, agent: string, signal: AbortSignal | undefined): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  for await (const { value } of jsonRows(output, signal)) {
    const row = value as Record<string, unknown>;
    if ((row.agent_ref as { name?: unknown } | undefined)?.name !== agent || '_ng_failure_class' in row) continue;
    rows.push(strippedForAggregate(row));
  }
  const key = (row: Record<string, unknown>) => [Number(row._ng_task_index), Number(row._ng_rollout_index)] as const;
  return rows.sort((a, b) => key(a)[0] - key(b)[0] || key(a)[1] - key(b)[1]);
}

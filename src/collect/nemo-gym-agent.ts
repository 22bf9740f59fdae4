import { z } from 'zod';
import { GymnastError } from '../core/errors/gymnast-error.js';
import { isDeterministicFailure, recordError } from '../core/recorded-error.js';
import { JsonClient } from '../policy/http/json-client.js';
import { Router } from '../policy/router/router.js';
import type { Agent, AgentOutcome } from './agent.js';

export interface NemoGymAgentOptions {
  name: string;
  /** The agent server's base URL(s); `/run` is posted there. */
  urls: readonly string[];
  /** Deadline of one `/run` (a whole rollout on the agent's side). */
  timeoutMs?: number;
  maxAttempts?: number;
  client?: JsonClient;
  /** Told of every retry (for progress displays). */
  onRetry?: () => void;
}

/** NeMo Gym's `/run` answer: whatever the agent reports, with a numeric `reward` (never invented here). */
const RunResult = z.object({ reward: z.number() }).passthrough();

/**
 * A NeMo Gym agent server (`POST /run` with the materialized row, NeMo Gym's shapes), so gymnast can
 * drive existing deployments. Transport errors, timeouts, 429 and 5xx are retried through the router;
 * what still fails is a typed failure row (transport, timeout, agent-error), never a reward of 0.
 * The result is stamped with the row's keys: the agent's own are trusted for none of them.
 */
export function nemoGymAgent(options: NemoGymAgentOptions): Agent & { close(): Promise<void> } {
  const client = options.client ?? new JsonClient();
  const router = new Router(client, { urls: options.urls, retry: { maxAttempts: options.maxAttempts ?? 3 } });
  router.onEvent = (event) => {
    if (event.type === 'retry') options.onRetry?.();
  };
  return {
    name: options.name,
    check: () => [],
    async run(row, context): Promise<AgentOutcome> {
      const signal = context.signal ?? new AbortController().signal;
      const stamps = {
        _ng_task_index: row._ng_task_index,
        _ng_rollout_index: row._ng_rollout_index,
        agent_ref: row.agent_ref,
        ...(row._ng_attempt_index === undefined ? {} : { _ng_attempt_index: row._ng_attempt_index }),
      };
      try {
        const result = await router.call(
          `${row._ng_task_index}:${row._ng_rollout_index}`,
          (replica) => client.request({ method: 'POST', baseUrl: replica.url, path: '/run', body: row, schema: RunResult, timeoutMs: options.timeoutMs ?? 600_000, signal }),
          signal,
        );
        return { kind: 'rollout', row: { ...result, ...stamps }, reward: result.reward };
      } catch (error) {
        if (!GymnastError.isInstance(error) && !signal.aborted) throw error;
        const failureClass = signal.aborted ? 'aborted' : error instanceof GymnastError && (error.kind === 'transport' || error.kind === 'timeout') ? error.kind : 'agent-error';
        const recorded = recordError(signal.aborted ? signal.reason : error);
        return { kind: 'failure', row: { ...row, ...stamps, _ng_failure_class: failureClass, ...(isDeterministicFailure(recorded) ? { _ng_failure_terminal: true } : {}), error: recorded } };
      }
    },
    async close() {
      router.close();
      if (!options.client) await client.close();
    },
  };
}

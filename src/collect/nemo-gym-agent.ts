import { z } from 'zod';
import { checkDurationMs } from '../core/duration.js';
import { GymnastError } from '../core/errors/gymnast-error.js';
import { hasKind } from '../core/errors/has-kind.js';
import { PolicyError } from '../core/errors/policy-error.js';
import { RequestTimeoutError } from '../core/errors/request-timeout-error.js';
import { toFailureClass, type FailureClass } from '../core/failure-class.js';
import { recordError, type RecordedError } from '../core/recorded-error.js';
import { ResultRowHead } from '../core/row-reader.js';
import { ROW_SCHEMA_VERSION, RowResponse, type MaterializedRow } from '../core/result-row.js';
import { JsonClient } from '../http-client/json-client.js';
import { requestUrl } from '../http-client/request-url.js';
import { Router } from '../http-client/router/router.js';
import type { Agent } from './agent.js';
import { failureFields } from './output-row.js';
import { AggregateMetrics } from './aggregate-metrics.js';
import { unlessNotFound } from './server-aggregate.js';
import type { RolloutOutcome } from './sink.js';
import { extensibleCopy } from '../util/extensible-copy.js';

export interface NemoGymAgentOptions {
  name: string;
  /** The agent server's base URL(s); `/run` is posted there. */
  urls: readonly string[];
  /** Deadline of a whole rollout: its `/run` attempts, their retries and backoff together. A `/run` that times out is not re-sent. */
  timeoutMs?: number;
  maxAttempts?: number;
  client?: JsonClient;
  /** Told of every retry (for progress displays). */
  onRetry?: () => void;
}

/**
 * NeMo Gym's `/run` answer: whatever the agent reports, with a numeric `reward` (never invented here).
 * A verifier that failed says so with `_ng_failure_class` (NeMo Gym's `judge_failed` and others).
 */
const RunResult = z.looseObject({
  reward: z.number(),
  response: RowResponse.optional(),
  _ng_failure_class: z.string().optional(),
  _ng_no_persist: z.boolean().optional(),
});

/** The keys NeMo Gym's collector stamps on a result: the agent's own are trusted for none of them. */
const stampsOf = (row: MaterializedRow) => ({
  responses_create_params: row.responses_create_params,
  agent_ref: row.agent_ref,
  _ng_task_index: row._ng_task_index,
  _ng_rollout_index: row._ng_rollout_index,
  ...(row._ng_attempt_index === undefined ? {} : { _ng_attempt_index: row._ng_attempt_index }),
});

/**
 * A NeMo Gym agent server (`POST /run` with the materialized row, NeMo Gym's shapes), so gymnast can
 * drive existing deployments. Transport errors, 429 and 5xx are retried through the router within the
 * rollout's deadline; a timed-out `/run` is not (the agent may still be running it). What still fails is a typed failure row (transport, timeout, agent-error), never a reward of 0.
 */
export function nemoGymAgent(options: NemoGymAgentOptions): Agent & { close(): Promise<void> } {
  checkDurationMs('timeoutMs', options.timeoutMs);
  const client = options.client ?? new JsonClient();
  const router = new Router(client, {
    urls: options.urls,
    retry: { maxAttempts: options.maxAttempts ?? 3 },
    onEvent: (event) => {
      if (event.type === 'retry') options.onRetry?.();
    },
  });
  return {
    name: options.name,
    check: () => [],
    async run(row, { control: { signal } }): Promise<RolloutOutcome> {
      const started = performance.now();
      const started_at = Date.now();
      const elapsed = () => performance.now() - started;
      const timing = (): RowTiming => ({ duration_ms: elapsed(), started_at });
      // The timeout bounds the whole rollout, retries and their backoff included: each attempt gets what is left.
      const timeoutMs = options.timeoutMs ?? 600_000;
      const deadline = AbortSignal.timeout(timeoutMs);
      let timedOut: RequestTimeoutError | undefined;
      try {
        const result = await router.call(
          `${row._ng_task_index}:${row._ng_rollout_index}`,
          async (replica) => {
            try {
              return await client.request({
                method: 'POST',
                baseUrl: replica.url,
                path: '/run',
                body: row,
                schema: RunResult,
                timeoutMs: Math.max(1, timeoutMs - elapsed()),
                signal: AbortSignal.any([signal, deadline]),
              });
            } catch (error) {
              if (!hasKind(error, 'timeout')) throw error;
              // A /run that timed out may still be running on the agent (tools called, a judge paid for): never re-sent blindly.
              timedOut = error;
              throw new PolicyError(`${error.message}; not re-sent, as the agent server may still be running it`, { cause: error });
            }
          },
          AbortSignal.any([signal, deadline]),
        );
        const { reward, _ng_failure_class: reported, _ng_no_persist: unpersisted, ...rest } = result;
        const common = extensibleCopy(row, { ...rest, ...stampsOf(row), schema_version: ROW_SCHEMA_VERSION, ...timing() });
        // NeMo Gym's "kill-shaped" rollouts never reached a verdict: retried later, never a reward.
        if (unpersisted === true)
          return failure(
            row,
            'aborted',
            { kind: 'agent-reported', name: 'NemoGymNoPersist', message: 'the agent server marked the rollout _ng_no_persist' },
            timing(),
          );
        if (reported !== undefined) return { kind: 'failure', row: extensibleCopy(common, reportedFailure(reported)) };
        const success = extensibleCopy(common, { response: result.response ?? {}, reward });
        const checked = ResultRowHead.safeParse(success);
        if (checked.success) return { kind: 'result', row: success };
        const issue = checked.error.issues[0]!;
        return failure(
          row,
          'agent-error',
          {
            kind: 'agent-reported',
            name: 'InvalidAgentResult',
            message: `the agent server's ${issue.path.join('.')} does not fit a result row: ${issue.message}`,
          },
          timing(),
        );
      } catch (error) {
        if (!signal.aborted && (timedOut !== undefined || deadline.aborted)) {
          return failure(row, 'timeout', recordError(timedOut ?? new RequestTimeoutError(requestUrl(options.urls[0]!, '/run'), timeoutMs)), timing());
        }
        if (!GymnastError.isInstance(error) && !signal.aborted) throw error;
        const failureClass: FailureClass = signal.aborted ? 'aborted' : hasKind(error, 'transport', 'timeout') ? error.kind : 'agent-error';
        return failure(row, failureClass, recordError(signal.aborted ? signal.reason : error), timing());
      }
    },
    aggregateMetrics: (verifyResponses, signal) =>
      unlessNotFound(() =>
        router.call(
          'aggregate_metrics',
          (replica) =>
            client.request({
              method: 'POST',
              baseUrl: replica.url,
              path: '/aggregate_metrics',
              body: { verify_responses: verifyResponses },
              schema: AggregateMetrics,
              timeoutMs: options.timeoutMs ?? 600_000,
              ...(signal ? { signal } : {}),
            }),
          signal ?? new AbortController().signal,
        ),
      ),
    async close() {
      router.close();
      if (!options.client) await client.close();
    },
  };
}

/** How long a rollout took, and when it started (epoch ms): what the timeline of `gymnast view` draws. */
interface RowTiming {
  duration_ms: number;
  started_at: number;
}

/** A failure row of the planned row alone: nothing the agent sent is kept. */
function failure(row: MaterializedRow, failureClass: FailureClass, error: RecordedError, timing: RowTiming): RolloutOutcome {
  return {
    kind: 'failure',
    row: extensibleCopy(row, { ...stampsOf(row), schema_version: ROW_SCHEMA_VERSION, ...timing, ...failureFields(failureClass, error) }),
  };
}

/** A failure the agent reported in NeMo Gym's words (its placeholder reward is dropped, never kept). */
function reportedFailure(reported: string) {
  const ours = toFailureClass(reported);
  return {
    ...failureFields(ours, { kind: 'agent-reported', name: 'NemoGymFailure', message: `the agent server reported ${reported}` }),
    ...(ours === reported ? {} : { nemo_gym_failure_class: reported }),
  };
}

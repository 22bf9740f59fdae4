import { ConfigError } from '../core/errors/config-error.js';
import { nemoGymGymnasiumEnvironment } from '../environments/nemo-gym/gymnasium-server-environment.js';
import { nemoGymResourcesEnvironment, type NemoGymResourcesOptions } from '../environments/nemo-gym/resources-server-environment.js';
import { responseOutput } from '../environments/nemo-gym/response-object.js';
import { findToolCallParser, hermesToolCallParser, toolCallParsers } from '../environments/tool-call-parser.js';
import type { JsonClient } from '../http-client/json-client.js';
import type { RetryBudgetOptions } from '../http-client/router/retry-budget.js';
import { environmentAgent, type Agent } from './agent.js';
import { AggregateMetrics } from './aggregate-metrics.js';
import { unlessNotFound } from './server-aggregate.js';

/**
 * How gymnast talks to a NeMo Gym server:
 * - `resources`: `/seed_session`, one `/<tool>` per call, `/verify` (NeMo Gym's `simple_agent`);
 * - `gymnasium`: `/reset`, `/step`, optional `/close` (NeMo Gym's `gymnasium_agent`).
 */
export type ResourcesProtocol = 'resources' | 'gymnasium';

export interface ResourcesAgentOptions {
  /** The agent's name: rows whose `agent_ref.name` is this run against the server. */
  name: string;
  urls: readonly string[];
  protocol: ResourcesProtocol;
  /** Deadline of one HTTP call to the server (default 300 s). */
  timeoutMs?: number;
  /** Attempts per call on connection errors, timeouts, 429 and 5xx (default 3). */
  maxAttempts?: number;
  retryBudget?: RetryBudgetOptions;
  /** The tool-call format the model writes (default `hermes`). */
  toolCallParser?: string;
  client?: JsonClient;
  onRetry?: () => void;
}

/**
 * gymnast's own exact-token episode loop for rows of one agent, against a NeMo Gym resources (or
 * gymnasium) server: the policy samples every turn (the row's tools reach it through the chat
 * template), the server gets the whole row and the turns as NeMo Gym's agents send them, and the row
 * written has gymnast's token fields beside the verifier's. `/aggregate_metrics` is the server's.
 */
export function resourcesAgent(options: ResourcesAgentOptions): Agent & { close(): Promise<void> } {
  const parser = options.toolCallParser === undefined ? hermesToolCallParser : findToolCallParser(options.toolCallParser);
  if (!parser) throw new ConfigError(`unknown tool-call format "${options.toolCallParser}": use ${toolCallParsers.map((known) => known.name).join(', ')}`);
  const serverOptions: NemoGymResourcesOptions = {
    name: options.name,
    urls: options.urls,
    toolCallParser: parser,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
    ...(options.retryBudget ? { retryBudget: options.retryBudget } : {}),
    ...(options.client ? { client: options.client } : {}),
    ...(options.onRetry ? { onRetry: options.onRetry } : {}),
  };
  const environment = options.protocol === 'gymnasium' ? nemoGymGymnasiumEnvironment(serverOptions) : nemoGymResourcesEnvironment(serverOptions);
  const agent = environmentAgent(options.name, environment, { wholeRow: true, responseOutput: (messages, from) => responseOutput(messages, from, parser) });
  return {
    ...agent,
    aggregateMetrics: (verifyResponses, signal) =>
      unlessNotFound(async () => {
        const session = { key: 'aggregate_metrics', cookies: {} };
        const answer = await environment.server.call(
          '/aggregate_metrics',
          { verify_responses: verifyResponses },
          AggregateMetrics,
          session,
          signal ?? new AbortController().signal,
        );
        return answer.value;
      }),
    close: () => environment.close(),
  };
}

import type { Agent } from '../collect/agent.js';
import type { ResourcesProtocol } from '../collect/resources-agent.js';
import { ConfigError } from '../core/errors/config-error.js';
import { defaultRetryBudget } from '../http-client/router/retry-budget.js';
import type { CollectFlags } from './collect-flags.js';

/** The flags the agents of `--resources-server` and `--gymnasium-server` are made from (collect's, and the worker's). */
export type ServerFlags = Pick<
  CollectFlags,
  'agentServer' | 'resourcesServer' | 'gymnasiumServer' | 'toolCallParser' | 'requestTimeout' | 'requestAttempts' | 'retryBudget'
>;

/**
 * The agents of `--resources-server` and `--gymnasium-server`: gymnast's own loop against NeMo Gym
 * servers, sharing the request deadline, attempts and retry budget flags with the policy. A name given
 * to two kinds of server would leave its rows two ways to run: refused.
 */
export async function resourcesAgents(flags: ServerFlags, onRetry: () => void): Promise<(Agent & { close(): Promise<void> })[]> {
  const named: [string, string, ResourcesProtocol][] = [
    ...Object.entries(flags.resourcesServer).map(([name, url]) => [name, url, 'resources'] as [string, string, ResourcesProtocol]),
    ...Object.entries(flags.gymnasiumServer).map(([name, url]) => [name, url, 'gymnasium'] as [string, string, ResourcesProtocol]),
  ];
  const taken = new Set(Object.keys(flags.agentServer));
  for (const [name] of named) {
    if (taken.has(name)) throw new ConfigError(`agent "${name}" is named by more than one of --agent-server, --resources-server and --gymnasium-server`);
    taken.add(name);
  }
  if (named.length === 0) return [];
  const { resourcesAgent } = await import('../collect/resources-agent.js');
  return named.map(([name, url, protocol]) =>
    resourcesAgent({
      name,
      urls: [url],
      protocol,
      onRetry,
      ...(flags.toolCallParser === undefined ? {} : { toolCallParser: flags.toolCallParser }),
      ...(flags.requestTimeout === undefined ? {} : { timeoutMs: flags.requestTimeout * 1000 }),
      ...(flags.requestAttempts === undefined ? {} : { maxAttempts: flags.requestAttempts }),
      ...(flags.retryBudget === undefined ? {} : { retryBudget: { ...defaultRetryBudget, ratio: flags.retryBudget } }),
    }),
  );
}

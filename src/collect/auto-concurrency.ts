import { ConfigError } from '../core/errors/config-error.js';
import { hasKind } from '../core/errors/has-kind.js';
import { ConcurrencyLimit } from '../engine/concurrency-limit.js';
import { JsonClient } from '../http-client/json-client.js';
import { readVllmLoad } from '../http-client/vllm-load.js';
import { abortableDelay } from '../util/abortable-delay.js';
import type { Policy } from '../policy/policy.js';
import { collectDefaults, MAX_CONCURRENCY } from './collect-settings.js';
import { ConcurrencyController, type ReplicaReading } from './concurrency-controller.js';

export interface AutoConcurrencyOptions {
  /** The replicas' base URLs, whose `/metrics` are read. */
  urls: readonly string[];
  client: JsonClient;
  controller: ConcurrencyController;
  /** What the scheduler runs by: set after every poll. */
  limit: ConcurrencyLimit;
  /** Between polls. */
  intervalMs: number;
  /** Ends the polling. */
  signal: AbortSignal;
  /** Waits between polls (default: the wall clock); a benchmark on a simulated fleet waits on its clock. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Told of each poll and the concurrency it set. */
  onPoll?: (limit: number, readings: readonly ReplicaReading[]) => void;
}

/** Every replica's load now; a replica that cannot be read is a reading with its error (it may be down). */
export function readReplicas(client: JsonClient, urls: readonly string[], timeoutMs: number, signal?: AbortSignal): Promise<ReplicaReading[]> {
  return Promise.all(
    urls.map((url) =>
      readVllmLoad(client, url, { timeoutMs, ...(signal ? { signal } : {}) }).then(
        (load) => ({ load }),
        (error: unknown) => ({ error }),
      ),
    ),
  );
}

/** How long the check before a run waits for a replica's metrics. */
const CHECK_TIMEOUT_MS = 10_000;

/**
 * Checks, before a run, that the policy has servers and that they serve vLLM's metrics: a server
 * that is not vLLM is a ConfigError now, not a run that silently stays at its first concurrency. A
 * replica that does not answer is let be: it may be starting, or down, which the controller handles.
 */
export async function checkReplicaMetrics(policy: Policy, client?: JsonClient): Promise<void> {
  const urls = autoConcurrencyUrls(policy);
  const own = client ?? new JsonClient({ connections: 1 });
  try {
    for (const reading of await readReplicas(own, urls, CHECK_TIMEOUT_MS)) {
      if ('error' in reading && hasKind(reading.error, 'config')) throw reading.error;
    }
  } finally {
    if (!client) await own.close();
  }
}

/**
 * `--concurrency auto` at work: polls every replica's `/metrics` each `intervalMs`, hands the readings
 * to the controller, and sets the scheduler's limit to what it says, until `signal` aborts.
 */
export async function adjustConcurrency(options: AutoConcurrencyOptions): Promise<void> {
  const { signal } = options;
  const sleep = options.sleep ?? abortableDelay;
  // A replica that does not answer counts as down, so a busy one is given time: a server under load
  // answers its /metrics late before it stops answering (5 s, or five intervals if longer).
  const timeoutMs = Math.max(5 * options.intervalMs, 5_000);
  while (!signal.aborted) {
    try {
      await sleep(options.intervalMs, signal);
    } catch {
      return;
    }
    const readings = await readReplicas(options.client, options.urls, timeoutMs, signal);
    if (signal.aborted) return;
    options.limit.set(options.controller.next(readings));
    options.onPoll?.(options.limit.current, readings);
  }
}

/** What `concurrency: 'auto'` did over a run: the fewest and most rollouts it let run at once, and the last. */
export interface AutoConcurrencySummary {
  lowest: number;
  highest: number;
  last: number;
  polls: number;
}

/** A run's `concurrency: 'auto'`: the limit its scheduler runs by, its ceiling, and how to stop the polling. */
export interface AutoConcurrencyRun {
  limit: ConcurrencyLimit;
  /** The most rollouts it may ever run: the scheduler's `concurrency`. */
  ceiling: number;
  stop(): Promise<AutoConcurrencySummary>;
}

/**
 * Starts `concurrency: 'auto'` over the policy's servers, with `collectDefaults.autoConcurrency`:
 * the limit starts at `initialPerReplica` a replica and is moved by a `ConcurrencyController` after
 * every poll. A policy with no servers (the embedded model) is a ConfigError. `client` reads the
 * metrics (default one of its own, closed by `stop`); `sleep` waits between polls (default the wall clock);
 * `onPoll` is told of each poll.
 */
export function startAutoConcurrency(
  policy: Policy,
  options: { client?: JsonClient; sleep?: AutoConcurrencyOptions['sleep']; onPoll?: AutoConcurrencyOptions['onPoll'] } = {},
): AutoConcurrencyRun {
  const urls = autoConcurrencyUrls(policy);
  // Its own client unless given one: a few connections, one small request a replica a poll.
  const client = options.client ?? new JsonClient({ connections: 2 });
  const { initialPerReplica, maxPerReplica, intervalMs } = collectDefaults.autoConcurrency;
  const ceiling = Math.min(MAX_CONCURRENCY, maxPerReplica * urls.length);
  const controller = new ConcurrencyController({ initial: initialPerReplica * urls.length, min: 1, max: ceiling });
  const limit = new ConcurrencyLimit(controller.limit);
  const summary: AutoConcurrencySummary = { lowest: limit.current, highest: limit.current, last: limit.current, polls: 0 };
  const stopping = new AbortController();
  const polling = adjustConcurrency({
    urls,
    client,
    controller,
    limit,
    intervalMs,
    signal: stopping.signal,
    ...(options.sleep ? { sleep: options.sleep } : {}),
    onPoll: (current, readings) => {
      summary.lowest = Math.min(summary.lowest, current);
      summary.highest = Math.max(summary.highest, current);
      summary.last = current;
      summary.polls += 1;
      options.onPoll?.(current, readings);
    },
  });
  return {
    limit,
    ceiling,
    stop: async () => {
      stopping.abort();
      await polling;
      if (!options.client) await client.close();
      return summary;
    },
  };
}

/** The servers `concurrency: 'auto'` reads: the policy's, or a ConfigError saying why there are none. */
export function autoConcurrencyUrls(policy: Policy): readonly string[] {
  const urls = policy.serverUrls ?? [];
  if (urls.length === 0)
    throw new ConfigError(
      `concurrency auto reads the policy's vLLM servers' /metrics: policy ${policy.name} has no servers (give a number of rollouts instead)`,
    );
  return urls;
}

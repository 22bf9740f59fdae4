import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { GymnastError } from '../../core/errors/gymnast-error.js';
import { hasKind } from '../../core/errors/has-kind.js';
import { isRetryable } from '../../core/errors/is-retryable.js';
import { TransportError } from '../../core/errors/transport-error.js';
import { abortableDelay } from '../../util/abortable-delay.js';
import type { JsonClient } from '../json-client.js';
import { backoffDelay, defaultRetryOptions, type RetryOptions } from './backoff.js';
import { RetryBudget, type RetryBudgetOptions } from './retry-budget.js';
import { redactUrls } from '../../util/redact-urls.js';
import { serverUrl } from '../server-url.js';
import type { Routing } from './routing.js';

export interface Replica {
  readonly url: string;
  /** Requests sent and not yet answered. */
  inFlight: number;
  healthy: boolean;
}

export interface RouterOptions {
  urls: readonly string[];
  retry?: Partial<RetryOptions>;
  /** The retry budget shared by all requests (default: a fifth of requests, plus 10). */
  retryBudget?: RetryBudgetOptions;
  /** How often evicted replicas are probed for re-admission, and the path probed. */
  health?: { intervalMs?: number; timeoutMs?: number; path?: string };
  /** How requests are placed on replicas (default `sticky`: see `Routing`). */
  routing?: Routing;
  /**
   * With `sticky` routing, whether a new session joins the replica a session with the same first
   * prompt went to (default true): the samples of one GRPO group then share its prefill.
   */
  groupPlacement?: boolean;
  /** Pinned sessions kept; the least recently used pins are forgotten past this. */
  maxSessions?: number;
  random?: () => number;
  /** Told of retries, evictions and re-admissions as they happen (to count them, or log them). */
  onEvent?: (event: RouterEvent) => void;
}

/** What the router observed; counted by observers, not by the router. URLs have their credentials masked: observers log them. */
export type RouterEvent =
  | { type: 'retry'; url: string; attempt: number; delayMs: number; error: string }
  | { type: 'retry-budget-exhausted'; url: string; error: string }
  | { type: 'replica-evicted'; url: string; error: string }
  | { type: 'replica-readmitted'; url: string };

/**
 * A group's replica takes more of its samples while it has at most this many requests in flight more
 * than the least loaded replica: enough for a GRPO group of 16 or 32 to land whole, while a run of one
 * prompt repeated thousands of times still spreads over every replica (in runs of this size).
 */
const GROUP_SLACK = 32;

/** Prompts whose replica is remembered; the least recently placed are forgotten past this. */
const MAX_GROUPS = 10_000;

/**
 * Spreads requests over replicas of one model, as `routing` says (see `Routing`). By default
 * (`sticky`) a new session goes to the replica with the fewest requests in flight, or joins the
 * replica of a session with the same first prompt (a GRPO group's other samples) unless that one is
 * `GROUP_SLACK` busier; its later requests stick to that replica (its prefix cache holds the
 * conversation), and move only when the replica is evicted. Connection failures evict a replica
 * (never the last healthy one); a background probe re-admits it. Failures that say they are retryable (`isRetryable`: transport, timeout, 429, 5xx, a reply the sampler could not have produced) are retried
 * with backoff and jitter, honouring `Retry-After`, up to `maxAttempts` per request and within a
 * retry budget shared by all requests (`RetryBudget`).
 */
export class Router {
  readonly replicas: readonly Replica[];
  readonly #onEvent: (event: RouterEvent) => void;
  readonly #client: JsonClient;
  readonly #retry: RetryOptions;
  readonly #pins: LRUCache<string, Replica>;
  readonly #groups: LRUCache<number, Replica> | undefined;
  readonly #routing: Routing;
  /** The next replica in turn, for `round-robin`. */
  #turn = 0;
  readonly #random: () => number;
  readonly #healthTimer: NodeJS.Timeout;
  readonly #health: { timeoutMs: number; path: string };
  readonly #budget: RetryBudget;

  constructor(client: JsonClient, options: RouterOptions) {
    if (options.urls.length === 0) throw new RangeError('a router needs at least one base URL');
    this.#client = client;
    this.replicas = options.urls.map((url) => ({ url: serverUrl(url), inFlight: 0, healthy: true }));
    this.#retry = { ...defaultRetryOptions, ...options.retry };
    this.#budget = new RetryBudget(options.retryBudget);
    this.#pins = new LRUCache({ max: options.maxSessions ?? 100_000 });
    this.#routing = options.routing ?? 'sticky';
    this.#groups = this.#routing === 'sticky' && options.groupPlacement !== false ? new LRUCache({ max: MAX_GROUPS }) : undefined;
    this.#random = options.random ?? Math.random;
    this.#onEvent = options.onEvent ?? (() => {});
    this.#health = { timeoutMs: options.health?.timeoutMs ?? 2_000, path: options.health?.path ?? '/health' };
    this.#healthTimer = setInterval(() => void this.probeEvicted(), options.health?.intervalMs ?? 2_000).unref();
  }

  /**
   * Runs `send` on the session's replica, retrying retryable failures as described above.
   * `promptKey` gives the key of the request's prompt (see `promptKey`); it is asked only when a new
   * session is placed under `sticky` routing. Not an async function: every request in flight waits
   * here, and a promise step per attempt is less memory than an async frame (a generator, its
   * registers, promise and closures) per request (issue 26).
   */
  call<T>(sessionId: string, send: (replica: Replica) => Promise<T>, signal: AbortSignal, promptKey?: () => number): Promise<T> {
    this.#budget.recordRequest();
    return this.#attempt(1, sessionId, send, signal, promptKey);
  }

  /** One attempt on the session's replica, counted in its `inFlight` until it ends (a retry's backoff included). */
  #attempt<T>(
    attempt: number,
    sessionId: string,
    send: (replica: Replica) => Promise<T>,
    signal: AbortSignal,
    promptKey: (() => number) | undefined,
  ): Promise<T> {
    let replica: Replica;
    let sent: Promise<T>;
    try {
      replica = this.#replicaFor(sessionId, promptKey);
    } catch (error) {
      return Promise.reject(error);
    }
    replica.inFlight += 1;
    try {
      sent = send(replica);
    } catch (error) {
      sent = Promise.reject(error);
    }
    return sent.then(
      (value) => {
        replica.inFlight -= 1;
        return value;
      },
      (error: unknown) => {
        let delayMs: number;
        try {
          delayMs = this.#retryDelay(error, attempt, replica, signal);
        } catch (final) {
          replica.inFlight -= 1;
          throw final;
        }
        return abortableDelay(delayMs, signal).then(
          () => {
            replica.inFlight -= 1;
            return this.#attempt(attempt + 1, sessionId, send, signal, promptKey);
          },
          (aborted: unknown) => {
            replica.inFlight -= 1;
            throw aborted;
          },
        );
      },
    );
  }

  /** How long to wait before retrying `error` (told to `onEvent`), or `error` thrown when it is not to be retried. */
  #retryDelay(error: unknown, attempt: number, replica: Replica, signal: AbortSignal): number {
    if (signal.aborted || !isRetryable(error) || attempt >= this.#retry.maxAttempts) throw error;
    if (!this.#budget.tryRetry()) {
      this.#onEvent({ type: 'retry-budget-exhausted', url: redactUrls(replica.url), error: error.message });
      throw error;
    }
    if (hasKind(error, 'transport')) this.#evict(replica, error);
    const delayMs = backoffDelay(attempt, this.#retry, this.#random, hasKind(error, 'server') ? error.retryAfterMs : undefined);
    this.#onEvent({ type: 'retry', url: redactUrls(replica.url), attempt, delayMs, error: error.message });
    return delayMs;
  }

  /** Probes evicted replicas once and re-admits those that answer. */
  async probeEvicted(): Promise<void> {
    await Promise.all(
      this.replicas
        .filter((replica) => !replica.healthy)
        .map(async (replica) => {
          try {
            await this.#client.request({
              method: 'GET',
              baseUrl: replica.url,
              path: this.#health.path,
              schema: z.unknown(),
              timeoutMs: this.#health.timeoutMs,
            });
            replica.healthy = true;
            this.#onEvent({ type: 'replica-readmitted', url: redactUrls(replica.url) });
          } catch (error) {
            if (!GymnastError.isInstance(error)) throw error;
          }
        }),
    );
  }

  /** The session is over: its pin goes, so pins follow the sessions in flight, not every session of a run. */
  release(sessionId: string): void {
    this.#pins.delete(sessionId);
  }

  /** How many sessions are pinned to a replica now. */
  get pinnedSessions(): number {
    return this.#pins.size;
  }

  close(): void {
    clearInterval(this.#healthTimer);
  }

  #replicaFor(sessionId: string, promptKey: (() => number) | undefined): Replica {
    // One replica is never evicted (it is the last healthy one) and leaves nothing to choose: no pin
    // is kept for it, since a pin per session is memory that grows with the run (issue 13).
    if (this.replicas.length === 1) return this.replicas[0]!;
    if (this.#routing === 'round-robin') return this.#nextInTurn();
    if (this.#routing === 'least-loaded') return leastLoaded(this.#healthy());
    const pinned = this.#pins.get(sessionId);
    if (pinned?.healthy) return pinned;
    const chosen = this.#place(promptKey?.());
    this.#pins.set(sessionId, chosen);
    return chosen;
  }

  /** A new sticky session's replica: its group's, unless that one is gone or too busy, else the least loaded. */
  #place(key: number | undefined): Replica {
    const least = leastLoaded(this.#healthy());
    if (this.#groups === undefined || key === undefined) return least;
    const group = this.#groups.get(key);
    if (group?.healthy && group.inFlight <= least.inFlight + GROUP_SLACK) return group;
    this.#groups.set(key, least);
    return least;
  }

  #nextInTurn(): Replica {
    for (let tried = 0; tried < this.replicas.length; tried++) {
      const replica = this.replicas[this.#turn++ % this.replicas.length]!;
      if (replica.healthy) return replica;
    }
    return this.#healthy()[0]!;
  }

  /** The replicas not evicted; a TransportError when there are none. */
  #healthy(): Replica[] {
    const healthy = this.replicas.filter((replica) => replica.healthy);
    if (healthy.length === 0) throw new TransportError(this.replicas.map((replica) => replica.url).join(', '), 'no healthy replica');
    return healthy;
  }

  /** Evicts a replica that failed to connect, unless it is the last healthy one: then retrying it is all there is. */
  #evict(replica: Replica, error: Error): void {
    if (!replica.healthy || !this.replicas.some((other) => other !== replica && other.healthy)) return;
    replica.healthy = false;
    this.#onEvent({ type: 'replica-evicted', url: redactUrls(replica.url), error: error.message });
  }
}

function leastLoaded(replicas: readonly Replica[]): Replica {
  return replicas.reduce((best, replica) => (replica.inFlight < best.inFlight ? replica : best));
}

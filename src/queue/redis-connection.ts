import { Redis } from 'ioredis';
import { redactUrls } from '../util/redact-urls.js';
import { QueueError } from './queue-error.js';
import type { RedisTarget } from './redis-target.js';

/** How to get a Redis, said with every error that could not reach one. */
const HOW_TO_START = 'start one (apt-get install redis-server; redis-server --port 6379 --appendonly yes) or fix --queue';

export interface RedisConnectionOptions {
  /** How long a lost connection is retried (a Redis restarting) before the queue counts as gone for good. */
  reconnectForMs: number;
  /** Told once when the connection is gone for good. */
  onGone?: (error: QueueError) => void;
}

/**
 * A connection to `target` that has answered a PING: a Redis that cannot be reached is one clear error
 * naming the URL (credentials masked), before any work. A connection lost later is retried for
 * `reconnectForMs` (a restart with AOF loses nothing), then reported through `onGone`.
 */
export async function connectRedis(target: RedisTarget, options: RedisConnectionOptions): Promise<Redis> {
  let lostAt: number | undefined;
  let lastError = '';
  const redis = new Redis(target.url, {
    lazyConnect: true,
    // BullMQ's workers need commands to wait for a reconnect rather than fail after a few retries.
    maxRetriesPerRequest: null,
    retryStrategy: () => {
      lostAt ??= Date.now();
      return Date.now() - lostAt > options.reconnectForMs ? null : 250;
    },
  });
  redis.on('ready', () => (lostAt = undefined));
  // ioredis logs unhandled connection errors itself; they are reported here, once, with the URL masked.
  redis.on('error', (error: Error) => (lastError = errorReason(error)));
  redis.on('end', () => options.onGone?.(unreachable(target, lastError || 'connection closed', options.reconnectForMs)));
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw unreachable(target, lastError || errorReason(error), undefined);
  }
  return redis;
}

function unreachable(target: RedisTarget, reason: string, retriedMs: number | undefined): QueueError {
  if (retriedMs === undefined) return new QueueError(`cannot reach Redis at ${target.shown} (${reason}): ${HOW_TO_START}`);
  return new QueueError(
    `lost Redis at ${target.shown} and could not reach it again for ${Math.round(retriedMs / 1000)} s (${reason}): start it again (with its AOF, --appendonly yes), then the same command; a collect continues with --resume`,
  );
}

function errorReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const message = error instanceof Error ? error.message : String(error);
  return redactUrls(code && !message.includes(code) ? `${code}: ${message}` : message);
}

import type { Redis } from 'ioredis';
import { WORKERS_KEY } from './queue-keys.js';

/** Redis's own clock in ms: workers and coordinator on machines whose clocks differ still agree on who is alive. */
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

const BEAT = `${NOW}
redis.call('ZADD', KEYS[1], now, ARGV[1])`;

const COUNT = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[1]))
return redis.call('ZCARD', KEYS[1])`;

/** A worker's heartbeat: it is alive now, by Redis's clock. */
export async function heartbeat(redis: Redis, worker: string): Promise<void> {
  await redis.eval(BEAT, 1, WORKERS_KEY, worker);
}

/** A worker that stops says so at once, rather than after its last heartbeat ages out. */
export async function leave(redis: Redis, worker: string): Promise<void> {
  await redis.zrem(WORKERS_KEY, worker);
}

/** The workers whose last heartbeat is at most `windowMs` old; older ones are forgotten. */
export async function workersAlive(redis: Redis, windowMs: number): Promise<number> {
  return Number(await redis.eval(COUNT, 1, WORKERS_KEY, windowMs));
}

import { ConfigError } from '../core/errors/config-error.js';
import { redactUrls } from '../util/redact-urls.js';

/** A `--queue` URL: what ioredis connects to, and what may be shown (its credentials masked). */
export interface RedisTarget {
  url: string;
  /** The URL with its user and password masked: the only form printed or stored. */
  shown: string;
}

/** `redis://[user:password@]host[:port][/db]` (or `rediss://` for TLS), checked before anything connects. */
export function redisTarget(value: string): RedisTarget {
  const shown = redactUrls(value);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`--queue: expected redis://HOST:PORT/DB, got ${shown}`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new ConfigError(`--queue: expected a redis:// or rediss:// URL, got ${shown}`);
  if (url.hostname === '') throw new ConfigError(`--queue: ${shown} names no host`);
  const db = url.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db)) throw new ConfigError(`--queue: the database of ${shown} must be a number (redis://HOST:PORT/0)`);
  return { url: value, shown };
}

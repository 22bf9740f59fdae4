import { z } from 'zod';
import { ConfigError } from './errors/config-error.js';
import { schemaIssues } from './schema-issues.js';

/**
 * The longest deadline taken: beyond a day a deadline is a typo, and Node's timers overflow past
 * 2^31-1 ms (~24.8 days) and fire at once (`--rollout-timeout 3000000` failed every rollout after 1 ms).
 */
export const MAX_DURATION_MS = 86_400_000;

const DURATION_MESSAGES = { type: 'expected a number', positive: 'expected a duration > 0' } as const;

/** A deadline in milliseconds, as the library takes them (`requestTimeoutMs`, `rolloutTimeoutMs`, `runTimeoutMs`). */
export const DurationMs = z
  .number({ error: DURATION_MESSAGES.type })
  .positive({ error: DURATION_MESSAGES.positive })
  .max(MAX_DURATION_MS, { error: `expected at most a day (${MAX_DURATION_MS} ms)` });

/** A deadline in seconds, as flags and NeMo Gym's config files give them. */
export const DurationSeconds = z
  .number({ error: DURATION_MESSAGES.type })
  .positive({ error: 'expected a duration in seconds > 0' })
  .max(MAX_DURATION_MS / 1000, { error: `expected at most a day (${MAX_DURATION_MS / 1000} seconds)` });

/** A deadline option that no settings schema reads, checked where it is taken: a `ConfigError` naming it. */
export function checkDurationMs(name: string, value: number | undefined): void {
  if (value === undefined) return;
  const [issue] = schemaIssues(DurationMs, value);
  if (issue) throw new ConfigError(`${name}: ${issue.message}`);
}

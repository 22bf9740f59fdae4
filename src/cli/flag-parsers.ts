import { InvalidArgumentError } from 'commander';
import { z } from 'zod';
import { CollectSettings, FixedConcurrency, MEGABYTE } from '../collect/collect-settings.js';
import { MAX_UNHEALTHY_EXPECTED, readMaxUnhealthy, type MaxUnhealthy } from '../collect/health/health-gate.js';
import { MAX_REPEATS, SEED_FIELDS, type SeedField } from '../collect/row-planner.js';
import { DurationSeconds } from '../core/duration.js';
import { SamplingParams } from '../core/sampling-params.js';
import { schemaIssues } from '../core/schema-issues.js';
import { RequestSettings } from '../policy/create-policy.js';
import { isHttpUrl } from '../util/is-http-url.js';
import { prototypeKeyProblem } from '../util/prototype-key-problem.js';
import { redactUrls } from '../util/redact-urls.js';

/**
 * Every flag value that is not plain text is parsed here, checked by the same zod schema the library
 * checks its options with, so `--concurrency 0` and `concurrency: 0` in a config file are refused with
 * the same message as `collect({concurrency: 0})`. Commander names the flag in front of the message.
 */

/** A decimal number as people write it; `Number()` alone would take '', '0x10' and ' 3 '. */
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

function parseNumber(value: string): number {
  if (!NUMBER.test(value.trim()) || value.trim() !== value) throw new InvalidArgumentError(`expected a number, got "${value}"`);
  return Number(value);
}

/** A parser that reads a number and checks it with `schema`. */
export function numberFlag(schema: z.ZodType<number | undefined>): (value: string) => number {
  return (value) => {
    const number = parseNumber(value);
    const [issue] = schemaIssues(schema, number);
    if (issue) throw new InvalidArgumentError(`${issue.expected}, got ${value}`);
    return number;
  };
}

const settings = CollectSettings.shape;
const sampling = SamplingParams.shape;

export const parseConcurrency = numberFlag(FixedConcurrency);

/** `collect --concurrency`: a number of rollouts, or `auto` (read from the servers' metrics as the run goes). */
export function parseCollectConcurrency(value: string): number | 'auto' {
  if (value === 'auto') return value;
  if (!NUMBER.test(value.trim())) throw new InvalidArgumentError(`expected a number or auto, got "${value}"`);
  return parseConcurrency(value);
}
export const parseMaxTurns = numberFlag(settings.maxTurns.unwrap());
export const parseMaxSeqLen = numberFlag(settings.maxSeqLen);
export const parseMaxAttempts = numberFlag(settings.maxAttempts.unwrap());
export const parseLimit = numberFlag(settings.limit.unwrap());
export const parseMaxTokens = numberFlag(sampling.max_tokens.unwrap());
export const parseTemperature = numberFlag(sampling.temperature.unwrap());
export const parseSeed = numberFlag(sampling.seed.unwrap());

/** A deadline in seconds, as a user gives one (every `--…-timeout` flag); the library takes milliseconds, up to the same day. */
export const parseSeconds = numberFlag(DurationSeconds);

const requests = RequestSettings.shape;

/** `--max-line-mb`: megabytes (of 2^20 bytes), checked against the library's range in bytes. */
export function parseMaxLineMb(value: string): number {
  const megabytes = parseNumber(value);
  if (!(megabytes > 0)) throw new InvalidArgumentError(`expected a size in MB > 0, got ${value}`);
  const [issue] = schemaIssues(settings.maxLineBytes.unwrap(), Math.ceil(megabytes * MEGABYTE));
  if (issue) throw new InvalidArgumentError(`${issue.expected}, got ${value} MB`);
  return megabytes;
}

export const parseRequestAttempts = numberFlag(requests.requestAttempts.unwrap());
export const parseRetryBudget = numberFlag(requests.retryBudget.unwrap());

/** A TCP port to listen on; 0 picks a free one. */
export const parsePort = numberFlag(
  z
    .number()
    .int({ error: 'expected a whole number' })
    .min(0, { error: 'expected a port from 0 to 65535' })
    .max(65_535, { error: 'expected a port from 0 to 65535' }),
);

/** A key a server requires (`--api-key`): an empty one would let anyone in who sends an empty key. */
export function parseApiKey(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('expected a key, got an empty one');
  return value;
}

/** `--fail-on-error`: a count of failures (a whole number) or a fraction of the rollouts (below 1). */
export function parseFailureLimit(value: string): number {
  const limit = parseNumber(value);
  if (!(limit >= 0) || (limit >= 1 && !Number.isInteger(limit)) || !Number.isFinite(limit)) {
    throw new InvalidArgumentError(`expected a whole count of failures (e.g. 10) or a fraction below 1 (e.g. 0.05), got ${value}`);
  }
  return limit;
}

/** `--max-unhealthy` (collect and health): a count of unhealthy rollouts, or a fraction of the rollouts below 1. */
export function parseMaxUnhealthy(value: string): MaxUnhealthy {
  const max = readMaxUnhealthy(value);
  if (max === undefined) throw new InvalidArgumentError(`${MAX_UNHEALTHY_EXPECTED}, got ${value}`);
  return max;
}

export function parseSeedField(value: string): SeedField {
  if (!(SEED_FIELDS as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected ${SEED_FIELDS.join(' or ')}, got "${value}"`);
  return value as SeedField;
}

export function parseSchedule(value: string): 'async' | 'lockstep' {
  const parsed = settings.schedule.unwrap().safeParse(value);
  if (!parsed.success) throw new InvalidArgumentError(`expected async or lockstep, got "${value}"`);
  return parsed.data;
}

/** `--on-max-tokens`: what a generation cut by max_tokens does to its episode. */
export function parseOnMaxTokens(value: string): 'continue' | 'end' {
  const parsed = settings.onMaxTokens.unwrap().safeParse(value);
  if (!parsed.success) throw new InvalidArgumentError(`expected continue or end, got "${value}"`);
  return parsed.data;
}

const parseRepeatCount = numberFlag(
  z
    .number()
    .int()
    .min(1, { error: 'expected a whole number ≥ 1' })
    .max(MAX_REPEATS, { error: `expected at most ${MAX_REPEATS}` }),
);

/** `--num-repeats`: a whole number ≥ 1, or a JSON map of agent → count with an optional `_default`. */
export function parseNumRepeats(value: string): number | Record<string, number> {
  if (NUMBER.test(value.trim())) return parseRepeatCount(value.trim());
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new InvalidArgumentError(`expected a number or a JSON object like {"math": 4, "_default": 1}, got ${value}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new InvalidArgumentError(`expected a number or a JSON object like {"math": 4, "_default": 1}, got ${value}`);
  for (const [agent, count] of Object.entries(parsed)) {
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1)
      throw new InvalidArgumentError(`"${agent}": expected a whole number ≥ 1, got ${JSON.stringify(count)}`);
    if (count > MAX_REPEATS) throw new InvalidArgumentError(`"${agent}": expected at most ${MAX_REPEATS}, got ${count}`);
  }
  return parsed as Record<string, number>;
}

/** `key=value`, repeatable; the value is JSON when it parses as JSON, else the plain string. */
export function parseKeyValue(value: string, previous: Record<string, unknown>): Record<string, unknown> {
  const equals = value.indexOf('=');
  if (equals <= 0) throw new InvalidArgumentError(`expected key=value, got "${value}"`);
  const key = value.slice(0, equals);
  const problem = prototypeKeyProblem(key);
  if (problem !== undefined) throw new InvalidArgumentError(problem);
  return { ...previous, [key]: jsonOrText(value.slice(equals + 1)) };
}

/** `--agent-server name=URL`, repeatable: an agent name and the http(s) URL of its server. */
export function parseAgentServer(value: string, previous: Record<string, string>): Record<string, string> {
  const equals = value.indexOf('=');
  if (equals <= 0) throw new InvalidArgumentError(`expected name=URL, got "${redactUrls(value)}"`);
  const [name, url] = [value.slice(0, equals), jsonOrText(value.slice(equals + 1))];
  if (typeof url !== 'string' || !isHttpUrl(url))
    throw new InvalidArgumentError(`expected an http or https URL for ${name}, got ${redactUrls(JSON.stringify(url))}`);
  return { ...previous, [name]: url };
}

function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

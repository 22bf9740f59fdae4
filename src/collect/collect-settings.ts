import { constants } from 'node:buffer';
import { z } from 'zod';
import { DurationMs } from '../core/duration.js';
import { ConfigError } from '../core/errors/config-error.js';
import { SamplingParams, samplingDefaults } from '../core/sampling-params.js';

/** More rollouts in flight than any server takes at once; beyond it a typo (1e9) would exhaust memory. */
export const MAX_CONCURRENCY = 100_000;

/** `--max-line-mb` counts in units of 2^20 bytes, as `ls -lh` and `du -h` do. */
export const MEGABYTE = 1024 * 1024;

/**
 * What a collection runs with when an option is left out, one set for the library and the CLI:
 * `collect()` applies them (through `CollectSettings` and the row planner), and `gymnast collect`'s
 * flags default to them, so its help shows these values. `maxSeqLen` has none: it is the model's
 * context length, which `createPolicy` reports (`maxModelLen`) and the CLI takes when no flag is given.
 */
export const collectDefaults = {
  /** Rollouts per row. */
  numRepeats: 1,
  concurrency: 32,
  /**
   * `concurrency: 'auto'` (see `ConcurrencyController`): it starts at `initialPerReplica` rollouts a
   * replica and never passes `maxPerReplica` (vLLM's own batch limit on an H100, `max_num_seqs`),
   * reading every replica's `/metrics` each `intervalMs`.
   */
  autoConcurrency: { initialPerReplica: 16, maxPerReplica: 1024, intervalMs: 1000 },
  schedule: 'async',
  maxTurns: 8,
  /** NeMo RL's: the environment scores a generation cut by `max_tokens` and the episode goes on. */
  onMaxTokens: 'continue',
  maxAttempts: 3,
  /**
   * Input lines longer than this are refused: real NeMo Gym rows weigh a few KB (the largest of NeMo Gym's
   * examples, a competitive coding row with its tests, ~43 KB) and a prompt of a million tokens a few MB,
   * while a row is held whole, parsed and run, and a run's memory grows with it many times over.
   */
  maxLineBytes: 16 * MEGABYTE,
  sampling: samplingDefaults,
} as const;

/** The longest a limit may be raised to: longer text than this V8 cannot hold as one string. */
const MAX_LINE_BYTES = Math.floor(constants.MAX_STRING_LENGTH / MEGABYTE) * MEGABYTE;

const wholeNumber = (min: number) =>
  z
    .number({ error: 'expected a number' })
    .int({ error: 'expected a whole number' })
    .min(min, { error: `expected a whole number ≥ ${min}` });

/** A concurrency as a number of rollouts in flight. */
export const FixedConcurrency = wholeNumber(1).max(MAX_CONCURRENCY, { error: `expected at most ${MAX_CONCURRENCY}` });

/**
 * The numbers that shape a collection, with their ranges: the library checks them here, and the CLI
 * parses its flags with these same schemas (src/cli/flag-parsers.ts), so a rule lives in one place.
 */
export const CollectSettings = z
  .object({
    /**
     * Rollouts in flight at once (the lockstep schedule's batch size); bounded, since each is a worker.
     * `auto`: as many as the policy's vLLM servers take without preempting, read from their `/metrics`
     * as the run goes (async schedule only).
     */
    concurrency: z
      .union([FixedConcurrency, z.literal('auto')], { error: `expected a whole number from 1 to ${MAX_CONCURRENCY}, or auto` })
      .default(collectDefaults.concurrency),
    schedule: z.enum(['async', 'lockstep'], { error: 'expected async or lockstep' }).default(collectDefaults.schedule),
    /** Turns per episode. */
    maxTurns: wholeNumber(1).default(collectDefaults.maxTurns),
    /** Token budget per episode (prompt, generations and observations). */
    maxSeqLen: wholeNumber(1),
    /** What a generation cut by `max_tokens` does to its episode (see `MaxTokensPolicy`): NeMo RL's `continue` by default. */
    onMaxTokens: z.enum(['continue', 'end'], { error: 'expected continue or end' }).default(collectDefaults.onMaxTokens),
    /** Attempts per rollout before its failure is final. */
    maxAttempts: wholeNumber(1).default(collectDefaults.maxAttempts),
    /** Deadline of one rollout, in milliseconds. */
    rolloutTimeoutMs: DurationMs.optional(),
    /** Only the first N lines of the input. */
    limit: wholeNumber(1).optional(),
    /** The longest input line taken, in bytes (default 16 MiB). */
    maxLineBytes: wholeNumber(1)
      .max(MAX_LINE_BYTES, { error: `expected at most ${MAX_LINE_BYTES / MEGABYTE} MB (longer text does not fit in one string)` })
      .default(collectDefaults.maxLineBytes),
    /** How the policy samples, each field left out at its default (`samplingDefaults`). */
    sampling: SamplingParams.prefault({}),
  })
  .refine((settings) => settings.concurrency !== 'auto' || settings.schedule === 'async', {
    path: ['concurrency'],
    error: 'auto needs the async schedule (lockstep runs batches of one size)',
  });
export type CollectSettings = z.infer<typeof CollectSettings>;
export type CollectSettingsInput = z.input<typeof CollectSettings>;

/** The settings checked, or a ConfigError naming every field that is out of range. */
export function checkSettings(settings: CollectSettingsInput): CollectSettings {
  const parsed = CollectSettings.safeParse(settings);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const field = issue.path.join('.');
    const value = issue.path.reduce<unknown>(
      (within, key) => (typeof within === 'object' && within !== null ? (within as Record<PropertyKey, unknown>)[key] : undefined),
      settings,
    );
    return `${field}: ${issue.message}, got ${typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? 'nothing')}`;
  });
  throw new ConfigError(`invalid collect settings: ${problems.join('; ')}`);
}

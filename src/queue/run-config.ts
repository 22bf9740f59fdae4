import { z } from 'zod';
import { SamplingParams } from '../core/sampling-params.js';
import type { EpisodeOptions } from '../engine/index.js';
import type { Policy } from '../policy/policy.js';
import type { ConversationRenderer } from '../tokens/conversation-renderer.js';
import { QueueError } from './queue-error.js';

/**
 * The settings that shape a rollout, as the coordinator's run identity records them and stores them
 * for the workers: a worker runs a run's rollouts with the run's settings, never its own.
 */
export const RunConfig = z.looseObject({
  policy: z.string(),
  sampling: SamplingParams,
  max_turns: z.number().int().positive(),
  max_seq_len: z.number().int().positive(),
  on_max_tokens: z.enum(['end', 'continue']),
  rollout_timeout_ms: z.number().positive().nullable(),
});
export type RunConfig = z.infer<typeof RunConfig>;

/** A run's config as Redis holds it (JSON). */
export function readRunConfig(runId: string, text: string): RunConfig {
  const parsed = RunConfig.safeParse(JSON.parse(text));
  if (!parsed.success)
    throw new QueueError(
      `run ${runId}: its config in Redis is not one this gymnast reads (${parsed.error.issues[0]?.message}): run workers of the coordinator's version`,
    );
  return parsed.data;
}

/** The episode options of a run's rollouts on this worker: its policy, the run's settings. */
export function runEpisodeOptions(runId: string, config: RunConfig, policy: Policy, renderer: ConversationRenderer): Omit<EpisodeOptions, 'environment'> {
  // A rollout sampled by another model than the run identity names would be a second experiment in one file.
  if (config.policy !== policy.name)
    throw new QueueError(
      `run ${runId} samples with policy "${config.policy}", this worker's is "${policy.name}": start the worker with the coordinator's --policy and --model`,
    );
  return {
    policy,
    renderer,
    maxTurns: config.max_turns,
    maxSeqLen: config.max_seq_len,
    onMaxTokens: config.on_max_tokens,
    sampling: config.sampling,
    ...(config.rollout_timeout_ms === null ? {} : { episodeTimeoutMs: config.rollout_timeout_ms }),
  };
}

import { z } from 'zod';

/** Each sampling field's range, without a default: overrides name only what they change. */
const fields = {
  temperature: z.number().nonnegative(),
  top_p: z.number().gt(0).max(1),
  /** 0 or absent: no top-k filter. */
  top_k: z.number().int().nonnegative(),
  max_tokens: z.number().int().positive(),
  /** Base seed; the engine derives a distinct seed per (task, rollout, turn) from it. */
  seed: z.number().int(),
  /** Argmax decoding; overrides temperature, top_p and top_k. */
  greedy: z.boolean(),
};

/** What a field of `SamplingParams` left out is: the CLI's `--temperature` and `--max-tokens` default to the same (see `collectDefaults`). */
export const samplingDefaults = { temperature: 1, top_p: 1, max_tokens: 256, greedy: false } as const;

/** How the policy samples. Recorded with every rollout so a trainer knows what the logprobs mean. */
export const SamplingParams = z.object({
  temperature: fields.temperature.default(samplingDefaults.temperature),
  top_p: fields.top_p.default(samplingDefaults.top_p),
  top_k: fields.top_k.optional(),
  max_tokens: fields.max_tokens.default(samplingDefaults.max_tokens),
  seed: fields.seed.optional(),
  greedy: fields.greedy.default(samplingDefaults.greedy),
});
export type SamplingParams = z.infer<typeof SamplingParams>;
export type SamplingParamsInput = z.input<typeof SamplingParams>;

/** A run's sampling from its settings (flags or a config file); a seed not given is left out, not recorded as undefined. */
export function runSampling(settings: { temperature?: number | undefined; maxTokens?: number | undefined; seed?: number | undefined }): SamplingParams {
  return SamplingParams.parse({
    temperature: settings.temperature,
    max_tokens: settings.maxTokens,
    ...(settings.seed === undefined ? {} : { seed: settings.seed }),
  });
}

/**
 * A task's changes to the run's sampling: only the fields it names. (Zod 4 applies a default even
 * under `.partial()`, so `SamplingParams.partial()` would reset every unnamed field to its default,
 * overriding the run's `--max-tokens` or `--temperature` for any row that changed one field.)
 */
export const SamplingOverrides = z.object(fields).partial();
export type SamplingOverrides = z.infer<typeof SamplingOverrides>;

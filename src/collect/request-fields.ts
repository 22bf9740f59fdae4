import { z } from 'zod';
import { ResponsesItem, ResponsesTool } from '../core/responses-items.js';
import { SamplingOverrides } from '../core/sampling-params.js';

const sampling = SamplingOverrides.shape;

/** NeMo Gym's per-request engine extras: a JSON object as text, whose `seed`, when given, is a whole number. */
const ExtraBody = z
  .string()
  .refine((text) => extraBodyObject(text) !== undefined, { error: 'expected a JSON object as text, e.g. "{\\"seed\\": 1}"' })
  .refine(
    (text) => {
      const seed = extraBodyObject(text)?.seed;
      return seed === undefined || Number.isInteger(seed);
    },
    { error: 'expected its seed to be a whole number' },
  );

/** The request fields a row's episode reads; the sampling ones are held to the run's own ranges (SamplingParams). */
export const RequestFields = z
  .object({
    input: z.union([z.string(), z.array(ResponsesItem)]).optional(),
    tools: z.array(ResponsesTool).optional(),
    temperature: sampling.temperature,
    top_p: sampling.top_p,
    max_output_tokens: sampling.max_tokens,
    /** A rollout's seed where NeMo Gym's collector put it before PR #1099 (`--add-seed`, `--seed-field request`). */
    seed: sampling.seed.optional(),
    metadata: z.object({ extra_body: ExtraBody.optional() }).passthrough().nullable().optional(),
  })
  .passthrough();
export type RequestFields = z.infer<typeof RequestFields>;

export function extraBodyObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

import { z } from 'zod';
import { readYamlFile } from '../../collect/read-yaml-file.js';
import { ConfigError } from '../../core/errors/config-error.js';
import { parseWithIssues } from '../../core/schema-issues.js';

const count = z.number().int({ error: 'expected a whole number' }).min(1, { error: 'expected a whole number ≥ 1' });
const seconds = z.number().min(0, { error: 'expected seconds ≥ 0' }).finite();

/**
 * One simulated replica: the engine's limits as vLLM names them, the step-time coefficients, and the
 * output lengths its model writes. A profile file (YAML or JSON) has exactly these fields.
 */
export const SimProfile = z
  .strictObject({
    name: z.string().min(1),
    description: z.string(),
    /** The public numbers the coefficients were fitted to: where to check them. */
    sources: z.array(z.string().min(1)).min(1, { error: 'expected at least one source for the numbers' }),
    /** The name `/v1/models` lists (vLLM's `--served-model-name`). */
    model: z.string().min(1),
    /** vLLM's `--max-model-len`: prompt plus max_tokens. */
    maxModelLen: count,
    engine: z.strictObject({
      /** Tokens per KV block (vLLM's `--block-size`, 16 on CUDA). */
      blockSize: count,
      /** KV blocks on the device (vLLM logs it as `num_gpu_blocks`). */
      numGpuBlocks: count,
      /** vLLM's `--max-num-seqs`: requests in one batch at most. */
      maxNumSeqs: count,
      /** vLLM's `--max-num-batched-tokens`: tokens one step computes at most (the chunked-prefill budget). */
      maxNumBatchedTokens: count,
      /** vLLM's `--enable-prefix-caching` (on by default in V1). */
      enablePrefixCaching: z.boolean(),
    }),
    /** Seconds per step: beta0 + beta1 · prefill tokens not in cache + beta2 · decode tokens (BLIS's and Vidur's linear model). */
    stepTime: z.strictObject({ beta0: seconds, beta1: seconds, beta2: seconds }),
    /** Output lengths in tokens, end-of-sequence included: log-normal with this median and sigma (0: always the median), then capped by max_tokens. */
    outputLength: z.strictObject({ median: count, sigma: z.number().min(0).max(4, { error: 'expected a sigma from 0 to 4' }) }),
  })
  .refine((profile) => profile.maxModelLen <= profile.engine.numGpuBlocks * profile.engine.blockSize, {
    error: 'expected maxModelLen ≤ engine.numGpuBlocks × engine.blockSize (a request that fits the context must fit the KV cache, as vLLM checks at start)',
  });
export type SimProfile = z.infer<typeof SimProfile>;

/** A profile file, checked; a bad field is a ConfigError naming the file and the field. */
export async function readSimProfile(path: string): Promise<SimProfile> {
  const parsed = parseWithIssues(SimProfile, await readYamlFile(path, 'sim profile'));
  if ('data' in parsed) return parsed.data;
  const issue = parsed.issues[0]!;
  throw new ConfigError(`${path}: ${issue.field || 'profile'}: ${issue.message}`);
}

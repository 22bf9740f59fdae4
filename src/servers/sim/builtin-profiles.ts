import { ConfigError } from '../../core/errors/config-error.js';
import { readSimProfile, SimProfile } from './sim-profile.js';

const MICROSECOND = 1e-6;

/** Where BLIS keeps its fitted coefficients (microseconds per step, per token), at the commit read. */
const BLIS_DEFAULTS = 'BLIS (github.com/inference-sim/inference-sim) defaults.yaml at commit 1a6eb353412e981dba604fccd5096da4e8aee6da';

/** vLLM's own defaults for the OpenAI server on a GPU of 70 GiB or more other than an A100 (an H100). */
const VLLM_H100_DEFAULTS =
  'vLLM vllm/engine/arg_utils.py (get_batch_defaults): on GPUs of ≥ 70 GiB other than A100, the API server defaults to max_num_batched_tokens 8192 and max_num_seqs 1024';

/** What is chosen rather than measured: the output lengths of an RL workload depend on the task, not the hardware. */
const LENGTHS_CHOSEN =
  'Output lengths are chosen, not fitted: log-normal, so a few replies run ten times the median (the long tail that leaves a synchronous batch waiting on its slowest rollout).';

/**
 * The built-in profiles: one dense model and one mixture of experts, each on one H100, their step-time
 * coefficients the ones BLIS fitted to real vLLM runs. `maxModelLen` is 32k for both (a common RL
 * setting; both models take more).
 */
export const builtinProfiles: Readonly<Record<string, SimProfile>> = {
  'llama-3.1-8b-h100': SimProfile.parse({
    name: 'llama-3.1-8b-h100',
    description: `An 8B dense model (Llama-3.1-8B-Instruct) on one H100 under vLLM: about 174 tokens/s for one request, 35,000 tokens/s for 256 requests in decode. ${LENGTHS_CHOSEN}`,
    sources: [
      `${BLIS_DEFAULTS}: id meta-llama/llama-3.1-8b-instruct, GPU H100, tensor_parallelism 1, vllm/vllm-openai:v0.8.4: beta_coeffs [5752.705191348184, 17.25086436834028, 5.999143920128404] µs, total_kv_blocks 29205`,
      VLLM_H100_DEFAULTS,
    ],
    model: 'sim-llama-3.1-8b-h100',
    maxModelLen: 32_768,
    engine: { blockSize: 16, numGpuBlocks: 29_205, maxNumSeqs: 1024, maxNumBatchedTokens: 8192, enablePrefixCaching: true },
    stepTime: { beta0: 5752.705191348184 * MICROSECOND, beta1: 17.25086436834028 * MICROSECOND, beta2: 5.999143920128404 * MICROSECOND },
    outputLength: { median: 512, sigma: 1 },
  }),
  'gpt-oss-20b-h100': SimProfile.parse({
    name: 'gpt-oss-20b-h100',
    description: `A mixture of experts (gpt-oss-20b: 21B parameters, 3.6B active) on one H100 under vLLM: about 136 tokens/s for one request; its decode cost per token is lower than the dense 8B's, its prefill cost higher. Reasoning replies: median 1,024 tokens. ${LENGTHS_CHOSEN}`,
    sources: [
      `${BLIS_DEFAULTS}: id openai/gpt-oss-20b, GPU H100, tensor_parallelism 1, vllm/vllm-openai:v0.10.1.1: beta_coeffs [7344.860029214045, 60.64650677940525, 3.679647756509839] µs, total_kv_blocks 302690`,
      VLLM_H100_DEFAULTS,
    ],
    model: 'sim-gpt-oss-20b-h100',
    maxModelLen: 32_768,
    engine: { blockSize: 16, numGpuBlocks: 302_690, maxNumSeqs: 1024, maxNumBatchedTokens: 8192, enablePrefixCaching: true },
    stepTime: { beta0: 7344.860029214045 * MICROSECOND, beta1: 60.64650677940525 * MICROSECOND, beta2: 3.679647756509839 * MICROSECOND },
    outputLength: { median: 1024, sigma: 1 },
  }),
};

/** The profile used when none is named. */
export const DEFAULT_PROFILE = 'llama-3.1-8b-h100';

/** A built-in profile by name, else a profile file (YAML or JSON); neither is a ConfigError listing the built-in names. */
export async function resolveSimProfile(nameOrFile: string): Promise<SimProfile> {
  const builtin = Object.hasOwn(builtinProfiles, nameOrFile) ? builtinProfiles[nameOrFile] : undefined;
  if (builtin) return builtin;
  if (!/[./\\]/.test(nameOrFile))
    throw new ConfigError(`no sim profile "${nameOrFile}": name one of ${Object.keys(builtinProfiles).join(', ')}, or give a profile file (.yaml or .json)`);
  return readSimProfile(nameOrFile);
}

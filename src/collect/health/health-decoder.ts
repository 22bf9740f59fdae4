import { recordedPolicy } from '../run-identity.js';
import { collectPaths } from '../collect-paths.js';
import { embeddedModelDirectory } from '../../policy/embedded/embedded-policy.js';
import { loadHfTokenizer } from '../../tokens/hf-tokenizer.js';
import type { TokenDecoder } from '../../core/token-decoder.js';

/** The tokenizer for a run's decode check, or why there is none. */
export type HealthDecoder = { decoder: TokenDecoder; skippedReason?: undefined } | { decoder?: undefined; skippedReason: string };

/**
 * The tokenizer a caller already holds when it gives one (`collect` passes the one its policy
 * loaded: a second load of a large tokenizer.json costs about half a CPU-second and 100 MB); else
 * `--tokenizer DIR` when given; else the embedded model's own tokenizer when the run's `<stem>_run.json`
 * says the policy was the embedded model; else none (a server's tokenizer is not known from the rows).
 */
export async function healthDecoder(output: string, tokenizer?: string | TokenDecoder): Promise<HealthDecoder> {
  if (typeof tokenizer === 'object') return { decoder: tokenizer };
  const tokenizerDirectory = tokenizer;
  if (tokenizerDirectory !== undefined) return { decoder: await loadHfTokenizer(tokenizerDirectory) };
  // A run file that cannot be read only costs the decode check, which says so.
  const policy = recordedPolicy(collectPaths(output).run);
  if (policy === 'embedded') return { decoder: await loadHfTokenizer(embeddedModelDirectory) };
  const which = policy === undefined ? 'the run does not say which model sampled it' : `the run's policy is ${policy}`;
  return { skippedReason: `no tokenizer: ${which}; pass --tokenizer DIR to check that token ids decode to the text` };
}

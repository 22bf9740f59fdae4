import { recordedSampler, type RecordedSampler } from '../run-identity.js';
import { collectPaths } from '../collect-paths.js';
import { embeddedModelDirectory } from '../../policy/embedded/embedded-policy.js';
import { loadHfTokenizer } from '../../tokens/hf-tokenizer.js';
import type { TokenDecoder } from '../../core/token-decoder.js';

/**
 * The tokenizers of a run's decode and vocabulary checks, or why there is none: `decoder` for the rows
 * of the run's policy, `remoteDecoder` for the rows of `remoteAgents`, which an agent server sampled
 * with a model of its own (without one, their checks are skipped).
 */
export interface HealthDecoder {
  decoder?: TokenDecoder;
  skippedReason?: string;
  remoteAgents?: readonly string[];
  remoteDecoder?: TokenDecoder;
}

/** What the caller knows of the run's tokenizers; what it leaves out is found from the run's `_run.json`. */
export interface HealthDecoderSource {
  /** The policy's tokenizer, already loaded (`collect` passes the one its policy loaded). */
  decoder?: TokenDecoder;
  /** `--tokenizer DIR`: the model's tokenizer for every row, the agent servers' included. */
  tokenizer?: string;
  /** The agents an agent server ran with a model of its own (default: as `_run.json` recorded them). */
  remoteAgents?: readonly string[];
  /** Their model's tokenizer, already loaded. */
  remoteDecoder?: TokenDecoder;
}

/**
 * The tokenizer for the policy's rows: the one a caller already holds when it gives one (a second load
 * of a large tokenizer.json costs about half a CPU-second and 100 MB); else `--tokenizer DIR` when
 * given; else the embedded model's own tokenizer when the run's `<stem>_run.json` says the policy was
 * the embedded model; else none (a server's tokenizer is not known from the rows). The rows of the
 * agents an agent server ran (`_run.json`'s `remote_agents`) are checked with `--tokenizer DIR` alone:
 * the policy's tokenizer did not make them.
 */
export async function healthDecoder(output: string, source: HealthDecoderSource = {}): Promise<HealthDecoder> {
  // A run file that cannot be read only costs the decode check, which says so.
  const recorded: RecordedSampler =
    source.decoder !== undefined && source.remoteAgents !== undefined ? { remoteAgents: [] } : recordedSampler(collectPaths(output).run);
  const given = source.tokenizer === undefined ? undefined : await loadHfTokenizer(source.tokenizer);
  const remoteDecoder = source.remoteDecoder ?? given;
  const remote = { remoteAgents: source.remoteAgents ?? recorded.remoteAgents, ...(remoteDecoder === undefined ? {} : { remoteDecoder }) };
  const decoder = source.decoder ?? given ?? (recorded.policy === 'embedded' ? await loadHfTokenizer(embeddedModelDirectory) : undefined);
  if (decoder) return { decoder, ...remote };
  const which = recorded.policy === undefined ? 'the run does not say which model sampled it' : `the run's policy is ${recorded.policy}`;
  return { skippedReason: `no tokenizer: ${which}; pass --tokenizer DIR to check that token ids decode to the text`, ...remote };
}

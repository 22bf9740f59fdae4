import { checkRunHealth, RunHealthReader } from './check-run-health.js';
import { healthDecoder, type HealthDecoderSource } from './health-decoder.js';
import type { HealthSummary } from './health-summary.js';

/** Where the decode check's tokenizers come from (see `healthDecoder`), and what stops the pass. */
export interface RunHealthSource extends HealthDecoderSource {
  signal?: AbortSignal;
}

/**
 * `gymnast health` on one rollout file, as the command runs it: `checkRunHealth` with the decode check's tokenizers found as the command finds them
 * (`decoder` when given, else `tokenizer` loaded when given, else the embedded model's when the run
 * used it; the rows of agents an agent server ran only with `tokenizer`), the reports written beside the file.
 */
export async function runHealth(output: string, options: RunHealthSource = {}): Promise<HealthSummary> {
  const { signal, ...source } = options;
  return checkRunHealth(output, { ...(await healthDecoder(output, source)), ...(signal ? { signal } : {}) });
}

/**
 * `runHealth`'s checks as a reader of a pass over the run's files that others share: what `collect`
 * runs in the pass that aggregates the run, with the tokenizer its policy already loaded.
 */
export async function runHealthReader(output: string, options: HealthDecoderSource = {}): Promise<RunHealthReader> {
  return new RunHealthReader(output, await healthDecoder(output, options));
}

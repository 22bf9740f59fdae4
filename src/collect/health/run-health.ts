import { checkRunHealth, RunHealthReader } from './check-run-health.js';
import { healthDecoder } from './health-decoder.js';
import type { HealthSummary } from './health-summary.js';
import type { TokenDecoder } from '../../core/token-decoder.js';

/** Where the decode check's tokenizer comes from: one already loaded, else a tokenizer folder. */
export interface RunHealthSource {
  tokenizer?: string;
  decoder?: TokenDecoder;
  signal?: AbortSignal;
}

/**
 * `gymnast health` on one rollout file: the decode check's tokenizer found as the command finds it
 * (`decoder` when given, else `tokenizer` loaded when given, else the embedded model's when the run
 * used it), the reports written beside the file.
 */
export async function runHealth(output: string, options: RunHealthSource = {}): Promise<HealthSummary> {
  const decoder = await healthDecoder(output, options.decoder ?? options.tokenizer);
  return checkRunHealth(output, { ...decoder, ...(options.signal ? { signal: options.signal } : {}) });
}

/**
 * `runHealth`'s checks as a reader of a pass over the run's files that others share: what `collect`
 * runs in the pass that aggregates the run, with the tokenizer its policy already loaded.
 */
export async function runHealthReader(output: string, options: Omit<RunHealthSource, 'signal'> = {}): Promise<RunHealthReader> {
  return new RunHealthReader(output, await healthDecoder(output, options.decoder ?? options.tokenizer));
}

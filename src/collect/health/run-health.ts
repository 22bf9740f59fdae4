import { checkRunHealth } from './check-run-health.js';
import { healthDecoder } from './health-decoder.js';
import type { HealthSummary } from './health-summary.js';
import type { TokenDecoder } from '../../core/token-decoder.js';

/**
 * `gymnast health` on one rollout file: the decode check's tokenizer found as the command finds it
 * (`decoder` when given, else `tokenizer` loaded when given, else the embedded model's when the run
 * used it), the reports written beside the file. What `collect` calls after a run, with the
 * tokenizer its policy already loaded, before printing `healthSummaryLine`.
 */
export async function runHealth(output: string, options: { tokenizer?: string; decoder?: TokenDecoder; signal?: AbortSignal } = {}): Promise<HealthSummary> {
  const decoder = await healthDecoder(output, options.decoder ?? options.tokenizer);
  return checkRunHealth(output, { ...decoder, ...(options.signal ? { signal: options.signal } : {}) });
}

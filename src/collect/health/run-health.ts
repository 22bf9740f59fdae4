import { checkRunHealth } from './check-run-health.js';
import { healthDecoder } from './health-decoder.js';
import type { HealthSummary } from './health-summary.js';

/**
 * `gymnast health` on one rollout file: the decode check's tokenizer found as the command finds it
 * (`tokenizer` when given, else the embedded model's when the run used it), the reports written
 * beside the file. What `collect` calls after a run, before printing `healthSummaryLine`.
 */
export async function runHealth(output: string, options: { tokenizer?: string; signal?: AbortSignal } = {}): Promise<HealthSummary> {
  const decoder = await healthDecoder(output, options.tokenizer);
  return checkRunHealth(output, { ...decoder, ...(options.signal ? { signal: options.signal } : {}) });
}

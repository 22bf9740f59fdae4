import { healthFinding, type HealthFinding } from './health-check.js';

/**
 * What is wrong with one model call's logprobs, `values` for `ids` sampled tokens, each finding
 * starting with `where` and naming the field as the row spells it (`generation_logprobs` on messages,
 * `generation_log_probs` on NeMo Gym's output items): missing, of another length, not finite, above 0.
 */
export function logprobFindings(where: string, field: string, ids: number, values: unknown): HealthFinding[] {
  if (ids === 0) return [];
  if (values === undefined || values === null) return [healthFinding('logprobs-missing', `${where}: ${ids} sampled tokens without ${field}`)];
  if (!Array.isArray(values)) return [healthFinding('logprobs-length', `${where}: ${field} is not a list`)];
  const findings: HealthFinding[] = [];
  if (values.length !== ids) findings.push(healthFinding('logprobs-length', `${where}: ${values.length} logprobs for ${ids} token ids`));
  const nonFinite = values.findIndex((value) => typeof value !== 'number' || !Number.isFinite(value));
  if (nonFinite !== -1) findings.push(healthFinding('logprobs-non-finite', `${where}: ${field}[${nonFinite}] is ${values[nonFinite]}`));
  const positive = values.findIndex((value) => typeof value === 'number' && value > 0);
  if (positive !== -1) findings.push(healthFinding('logprobs-positive', `${where}: ${field}[${positive}] is ${values[positive]}, above 0`));
  return findings;
}

/**
 * The rollout health checks, each with a stable id (findings, reports and gates name it) and a
 * severity. NeMo Gym's rollout health checks (Gym PR #2705: duplicate identity, missing agent turns,
 * zero completion tokens, token count mismatch, runaway generation, consistently unhealthy task) are
 * the anchor; the token checks go past them because gymnast rows carry the exact ids and logprobs,
 * in the messages and again on `response.output`, where NeMo RL reads them.
 * `error`: the row cannot be trusted for training or scoring. `warning`: worth a look, not wrong.
 */
export const HEALTH_CHECKS = {
  'row-unreadable': { severity: 'error', description: 'a line that is not JSON, or not a row of the schema' },
  'duplicate-rollout': { severity: 'error', description: 'one (task, rollout) key with two successful rows' },
  'duplicate-plan': { severity: 'error', description: 'one (task, rollout) key planned twice in the materialized inputs' },
  'unplanned-rollout': { severity: 'error', description: 'a result or failure whose key the materialized inputs do not plan' },
  'missing-rollout': { severity: 'error', description: 'a planned key with neither a result nor a failure' },
  'no-assistant-turn': { severity: 'error', description: 'a rollout in which the model never answered' },
  'prompt-too-long': { severity: 'error', description: 'a prompt that alone filled max_seq_len: the model was never called, nothing was scored' },
  'empty-generation': { severity: 'error', description: 'an assistant turn with no generated tokens' },
  'token-count-mismatch': { severity: 'error', description: "the messages' token ids disagree with the turns' prompt and generated counts" },
  'usage-mismatch': { severity: 'error', description: 'response.usage input/output tokens disagree with the turns' },
  'token-text-mismatch': { severity: 'error', description: "an assistant turn's token ids do not decode to its recorded text" },
  'token-id-out-of-vocabulary': {
    severity: 'error',
    description: "a token id outside the tokenizer's vocabulary: no model of that tokenizer sampled or read it",
  },
  'logprobs-missing': { severity: 'error', description: 'sampled tokens without generation_logprobs' },
  'logprobs-non-finite': { severity: 'error', description: 'a logprob that is NaN, infinite or not a number' },
  'logprobs-positive': { severity: 'error', description: 'a logprob above 0 (a probability above 1)' },
  'logprobs-length': { severity: 'error', description: 'generation_logprobs and token_ids of different lengths' },
  'training-tokens-mismatch': {
    severity: 'error',
    description:
      "response.output's training fields (prompt_token_ids, generation_token_ids, generation_log_probs: what NeMo RL trains on) disagree with the messages' token ids and logprobs",
  },
  'training-tokens-malformed': {
    severity: 'error',
    description:
      "response.output's training fields are not token ids, or a call's prompt_token_ids do not continue the tokens before it (NeMo RL refuses the row)",
  },
  'runaway-generation': { severity: 'warning', description: 'a generation that filled max_tokens (finish length, termination max-tokens)' },
  'token-drift': { severity: 'warning', description: 'the chat template would have rendered the history differently (token_drift_count > 0)' },
  'drift-unchecked': {
    severity: 'warning',
    description: 'turns whose prompt the server rendered without returning its ids (drift_unchecked > 0): not known to be drift-free',
  },
  'no-token-record': { severity: 'warning', description: 'a rollout without token ids (an agent server row): the token checks cannot run' },
  'task-all-failed': { severity: 'error', description: 'a task none of whose rollouts succeeded: every repeat is a failure' },
  'task-all-zero-reward': { severity: 'warning', description: 'a task whose repeats (two or more) all scored 0: no learning signal' },
} as const satisfies Record<string, { severity: HealthSeverity; description: string }>;

export type HealthSeverity = 'error' | 'warning';
export type HealthCheckId = keyof typeof HEALTH_CHECKS;

/** One thing a check found wrong with a rollout, a key or a task. */
export interface HealthFinding {
  check: HealthCheckId;
  severity: HealthSeverity;
  message: string;
}

export function healthFinding(check: HealthCheckId, message: string): HealthFinding {
  return { check, severity: HEALTH_CHECKS[check].severity, message };
}

/** `unhealthy` when any finding is an error, `warning` when all are warnings, else `healthy`. */
export type HealthVerdict = 'healthy' | 'warning' | 'unhealthy';

export function verdictOf(findings: readonly Pick<HealthFinding, 'severity'>[]): HealthVerdict {
  if (findings.some((finding) => finding.severity === 'error')) return 'unhealthy';
  return findings.length > 0 ? 'warning' : 'healthy';
}

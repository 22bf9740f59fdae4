import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HEALTH_CHECKS, type HealthCheckId, healthFinding, verdictOf } from '../../src/metrics/health/health-check.js';
import { healthPaths } from '../../src/metrics/health/health-paths.js';

describe('health checks', () => {
  it('makes errors of what cannot be trained on or scored, and warnings of what only deserves a look', () => {
    const by = (severity: string) => (Object.keys(HEALTH_CHECKS) as HealthCheckId[]).filter((id) => HEALTH_CHECKS[id].severity === severity);
    assert.deepEqual(by('warning'), ['runaway-generation', 'token-drift', 'drift-unchecked', 'no-token-record', 'task-all-zero-reward']);
    assert.deepEqual(by('error'), [
      'row-unreadable',
      'duplicate-rollout',
      'duplicate-plan',
      'unplanned-rollout',
      'missing-rollout',
      'no-assistant-turn',
      'prompt-too-long',
      'empty-generation',
      'token-count-mismatch',
      'usage-mismatch',
      'token-text-mismatch',
      'token-id-out-of-vocabulary',
      'logprobs-missing',
      'logprobs-non-finite',
      'logprobs-positive',
      'logprobs-length',
      'training-tokens-mismatch',
      'training-tokens-malformed',
      'task-all-failed',
    ]);
  });

  it('describes every check in words (`gymnast health --checks` lists them)', () => {
    for (const [id, { description }] of Object.entries(HEALTH_CHECKS)) assert.ok(description.length > 20, `${id}: "${description}"`);
    assert.equal(new Set(Object.values(HEALTH_CHECKS).map(({ description }) => description)).size, Object.keys(HEALTH_CHECKS).length);
  });

  it("gives a finding its check's severity", () => {
    assert.deepEqual(healthFinding('token-drift', '1 turn'), { check: 'token-drift', severity: 'warning', message: '1 turn' });
    assert.deepEqual(healthFinding('empty-generation', 'turn 0'), { check: 'empty-generation', severity: 'error', message: 'turn 0' });
  });

  it('is unhealthy with any error, a warning with warnings alone, healthy with nothing', () => {
    assert.equal(verdictOf([]), 'healthy');
    assert.equal(verdictOf([{ severity: 'warning' }]), 'warning');
    assert.equal(verdictOf([{ severity: 'warning' }, { severity: 'warning' }]), 'warning');
    assert.equal(verdictOf([{ severity: 'error' }]), 'unhealthy');
    assert.equal(verdictOf([{ severity: 'warning' }, { severity: 'error' }, { severity: 'warning' }]), 'unhealthy');
  });

  it("writes a run's health report beside its output, named after its stem", () => {
    assert.deepEqual(healthPaths('/runs/math/out.jsonl'), { summary: '/runs/math/out_health.json', verdicts: '/runs/math/out_health.jsonl' });
    assert.deepEqual(healthPaths('runs/v1.2/rollouts'), { summary: 'runs/v1.2/rollouts_health.json', verdicts: 'runs/v1.2/rollouts_health.jsonl' });
  });
});

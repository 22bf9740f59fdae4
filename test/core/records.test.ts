import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EpisodeRecord, GymnastError, Message, PolicyError, RewardComponentsError, SamplingParams, recordError } from '../../src/core/index.js';

describe('messages', () => {
  it('accept sampled assistant turns whose logprobs match their tokens', () => {
    assert.doesNotThrow(() => Message.parse({ role: 'assistant', content: 'hi', token_ids: [1, 2], generation_logprobs: [-0.1, -0.2] }));
  });

  it('reject logprobs that do not match the tokens, or logprobs on a non-assistant message', () => {
    assert.throws(
      () => Message.parse({ role: 'assistant', content: 'hi', token_ids: [1, 2], generation_logprobs: [-0.1] }),
      /has 1 entries but token_ids has 2/,
    );
    assert.throws(() => Message.parse({ role: 'user', content: 'hi', token_ids: [1], generation_logprobs: [-0.1] }), /only assistant messages/);
  });
});

describe('records', () => {
  const base = {
    schema_version: 1,
    task_id: 't',
    task_index: 0,
    rollout_index: 0,
    messages: [],
    reward: 0,
    reward_components: {},
    turns: [],
    has_training_tokens: true,
    token_drift_count: 0,
    env_metadata: null,
    sampling: SamplingParams.parse({}),
    timing: { duration_ms: 1 },
  };

  it('keep failure terminations off rollout records, and success terminations off failure records', () => {
    assert.throws(() => EpisodeRecord.parse({ ...base, record_type: 'rollout', termination: { kind: 'policy-error' } }));
    const failure = { ...base, record_type: 'failure', failure_class: 'env-error', error: { kind: 'environment', name: 'E', message: 'm' } };
    assert.throws(() => EpisodeRecord.parse({ ...failure, termination: { kind: 'env-done' } }));
    assert.doesNotThrow(() => EpisodeRecord.parse({ ...failure, termination: { kind: 'env-error' } }));
  });

  it('refuse a schema version this reader does not know', () => {
    assert.throws(() => EpisodeRecord.parse({ ...base, schema_version: 2, record_type: 'rollout', termination: { kind: 'env-done' } }));
  });
});

describe('errors', () => {
  it('carry a stable kind and are recognised across copies of the package by a marker', () => {
    const error = new PolicyError('down', { isRetryable: true });
    assert.equal(error.kind, 'policy');
    assert.equal(error.isRetryable, true);
    assert.ok(GymnastError.isInstance(error));
    assert.ok(!GymnastError.isInstance(new Error('plain')));
  });

  it('become data for records, keeping kind, name, message and cause', () => {
    const recorded = recordError(new RewardComponentsError('env', 1, { a: 0.5 }));
    assert.equal(recorded.kind, 'reward-components');
    assert.equal(recorded.name, 'RewardComponentsError');
    assert.match(recorded.message, /sum to 0.5/);
    assert.deepEqual(recordError('a string'), { kind: 'unexpected', name: 'NonError', message: 'a string' });
  });
});

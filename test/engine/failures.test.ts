import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EpisodeRecord, type FailureRecord } from '../../src/core/index.js';
import { runEpisode, runGroups } from '../../src/engine/index.js';
import { ScriptedEnvironment, ScriptedPolicy } from '../../src/testing/index.js';
import { episodeOptions, task, tokenizer } from '../support/plain-episode.js';
import { settled } from '../support/settled.js';

const endsAtOnce = () => new ScriptedEnvironment({ step: () => ({ observation: [{ role: 'environment', content: 'done' }], reward: 1, terminated: true }) });

function asFailure(record: EpisodeRecord): FailureRecord {
  assert.equal(record.record_type, 'failure', `expected a failure, got ${JSON.stringify(record.termination)}`);
  return record as FailureRecord;
}

describe('failures', () => {
  it('a policy error fails only its own episode, as a typed failure record that validates', async () => {
    const policy = new ScriptedPolicy({
      tokenizer,
      script: (request) => (request.session_id.startsWith('task-1#') ? { error: new Error('connection reset') } : { text: 'fine' }),
    });
    const records = [];
    for await (const group of runGroups([task(0), task(1), task(2)], episodeOptions(policy, endsAtOnce()), { groupSize: 2 })) {
      records.push(...group.records);
    }
    const failed = records.filter((record) => record.record_type === 'failure');
    assert.equal(records.length, 6);
    assert.deepEqual(
      failed.map((record) => record.task_index),
      [1, 1],
    );
    const failure = asFailure(failed[0]!);
    assert.equal(failure.failure_class, 'policy-error');
    assert.equal(failure.termination.kind, 'policy-error');
    assert.match(failure.error.message, /connection reset/);
    assert.doesNotThrow(() => EpisodeRecord.parse(failure));
  });

  it('an environment that throws ends the episode as env-error, keeping the turns so far', async () => {
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'a' }] });
    const environment = new ScriptedEnvironment({
      name: 'flaky',
      step: (_turn, index) => {
        if (index === 1) throw new TypeError('cannot read board');
        return { observation: [{ role: 'environment', content: 'x' }], reward: 0.25, terminated: false };
      },
    });
    const failure = asFailure(await runEpisode(task(0), 0, episodeOptions(policy, environment)));
    assert.equal(failure.failure_class, 'env-error');
    assert.match(failure.error.message, /flaky: step failed: cannot read board/);
    assert.equal(failure.turns.length, 1);
    assert.equal(failure.messages.filter((message) => message.role === 'assistant').length, 2);
  });

  it('reward components that do not add up to the reward fail the episode with a clear error', async () => {
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'a' }] });
    const environment = new ScriptedEnvironment({
      name: 'grader',
      step: () => ({ reward: 1, reward_components: { correctness: 0.5, format: 0.25 }, terminated: true }),
    });
    const failure = asFailure(await runEpisode(task(0), 0, episodeOptions(policy, environment)));
    assert.equal(failure.failure_class, 'env-error');
    assert.equal(failure.error.kind, 'reward-components');
    assert.match(failure.error.message, /grader: reward components \{"correctness":0.5,"format":0.25\} sum to 0.75, but the step's reward is 1/);
  });

  it('a malformed step result names the field that is wrong', async () => {
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'a' }] });
    const environment = new ScriptedEnvironment({ name: 'sloppy', step: () => ({ reward: Number.NaN, terminated: true }) });
    const failure = asFailure(await runEpisode(task(0), 0, episodeOptions(policy, environment)));
    assert.match(failure.error.message, /sloppy: step returned an invalid result: reward:/);
  });

  it('a step that continues the episode without an observation is an environment error', async () => {
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'a' }] });
    const environment = new ScriptedEnvironment({ step: () => ({ reward: 0, terminated: false }) });
    const failure = asFailure(await runEpisode(task(0), 0, episodeOptions(policy, environment)));
    assert.match(failure.error.message, /must return an observation/);
  });

  it('a policy result whose logprobs do not match its tokens is a policy error, never recorded as sampled', async () => {
    const policy = new ScriptedPolicy({ tokenizer, script: [{ token_ids: [30, 31], logprobs: [-1] }] });
    const failure = asFailure(await runEpisode(task(0), 0, episodeOptions(policy, endsAtOnce())));
    assert.equal(failure.failure_class, 'policy-error');
    assert.match(failure.error.message, /invalid result: logprobs: token_ids and logprobs must have the same length/);
  });

  it('classifies a failure by its kind, even when another copy of gymnast threw it', async () => {
    // What a second copy of the package in the process throws: the same marker and kind, another class.
    const marker: unique symbol = Symbol.for('gymnast.error');
    class ForeignTransportError extends Error {
      readonly [marker] = true;
      readonly kind = 'transport';
      readonly isRetryable = true;
    }
    const policy = new ScriptedPolicy({ tokenizer, script: [{ error: new ForeignTransportError('connection refused') }] });
    const failure = asFailure(await runEpisode(task(0), 0, episodeOptions(policy, endsAtOnce())));
    assert.equal(failure.failure_class, 'transport');
    assert.equal(failure.error.message, 'connection refused');
  });

  it('a failure never carries a reward it did not earn', async () => {
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'a' }, { error: new Error('boom') }] });
    const environment = new ScriptedEnvironment({ step: () => ({ observation: [{ role: 'environment', content: 'x' }], reward: 0.5, terminated: false }) });
    const failure = asFailure(await runEpisode(task(0), 0, episodeOptions(policy, environment)));
    assert.equal(failure.reward, 0.5, 'the reward of the one scored turn, nothing invented');
  });

  it('an episode past its deadline ends as a timeout failure', async () => {
    // The reply would come a minute later: only the deadline ends the episode, whatever the machine's load.
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'slow', delay_ms: 60_000 }] });
    const started = performance.now();
    const failure = asFailure(await runEpisode(task(0), 0, episodeOptions(policy, endsAtOnce(), { episodeTimeoutMs: 50 })));
    assert.equal(failure.failure_class, 'timeout');
    assert.equal(failure.termination.kind, 'aborted');
    assert.match(failure.error.message, /deadline of 50 ms passed/);
    // Far past 50 ms on any machine, far short of a deadline misread as seconds.
    assert.ok(performance.now() - started < 20_000);
  });

  it('aborting the run ends in-flight episodes as aborted failures and admits no more', async () => {
    const controller = new AbortController();
    let asked = 0;
    // Stopped once both admitted episodes wait on their reply, which would come a minute later.
    const policy = new ScriptedPolicy({
      tokenizer,
      script: () => {
        if (++asked === 2) void settled().then(() => controller.abort(new Error('Ctrl-C')));
        return { text: 'slow', delay_ms: 60_000 };
      },
    });
    const records = [];
    const tasks = Array.from({ length: 10 }, (_, i) => task(i));
    const schedule = { kind: 'async', concurrency: 2 } as const;
    for await (const group of runGroups(tasks, episodeOptions(policy, endsAtOnce()), { groupSize: 1, schedule, signal: controller.signal })) {
      records.push(...group.records);
    }
    assert.equal(records.length, 2);
    assert.ok(records.every((record) => record.record_type === 'failure' && record.failure_class === 'aborted'));
    assert.equal(policy.requests.length, 2);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FailureClass, toFailureClass } from '../../src/core/index.js';

/*
 * Every class decides what a resume does with the row (an `aborted` row is retried without using up
 * an attempt) and what the health checks count, so each NeMo Gym name must land on its own class,
 * not merely on some class.
 */
describe('failure classes read from rows', () => {
  it('keeps each of our own classes as it is', () => {
    assert.deepEqual(FailureClass.options, [
      'policy-error',
      'transport',
      'timeout',
      'env-error',
      'token-alignment',
      'template-error',
      'agent-error',
      'aborted',
    ]);
    for (const ours of FailureClass.options) assert.equal(toFailureClass(ours), ours);
  });

  it("maps every one of NeMo Gym's _ng_failure_class values onto its class", () => {
    const expected = {
      judge_failed: 'env-error',
      transient: 'transport',
      timeout_exceeded: 'timeout',
      skipped: 'aborted',
      kill_shaped: 'aborted',
      legitimate: 'agent-error',
      agent_run_error: 'agent-error',
      agent_request_failed: 'transport',
    };
    for (const [nemoGym, ours] of Object.entries(expected)) assert.equal(toFailureClass(nemoGym), ours, nemoGym);
  });

  it('reads a class it does not know, or the empty string, as an agent-error rather than refusing the row', () => {
    for (const raw of ['', 'something_new', 'Timeout', 'toString', 'constructor']) assert.equal(toFailureClass(raw), 'agent-error', JSON.stringify(raw));
  });
});

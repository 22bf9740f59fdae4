import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type KeySource, RunKeysHealth } from '../../src/metrics/health/run-keys-health.js';

/** One key read: where from, its task and rollout, its origin (here a line number), and a result's reward. */
type Read = [source: KeySource, task: number, rollout: number, origin: number, reward?: number];

function keysOf(reads: readonly Read[]): { keys: RunKeysHealth; positions: number[] } {
  const keys = new RunKeysHealth();
  const positions = reads.map(([source, task, rollout, origin, reward]) => keys.add(source, task, rollout, origin, reward));
  return { keys, positions };
}

/** Every finding as `task:rollout @ line: check (severity): message` (`task:-` for a task's), then the counts. */
function check(keys: RunKeysHealth) {
  const findings = [...keys.findings((origin) => `line ${origin}`)].map(
    ({ task, rollout, origin, finding }) => `${task}:${rollout ?? '-'} @ ${origin}: ${finding.check} (${finding.severity}): ${finding.message}`,
  );
  return { findings, ...keys.counts() };
}

const healthy = (total: number) => ({ total, healthy: total, warning: 0, unhealthy: 0 });

/** Plans task × rollout keys, origins 1, 2, … in plan order. */
const plan = (tasks: number, rollouts: number): Read[] =>
  Array.from({ length: tasks * rollouts }, (_, i) => ['plan', Math.floor(i / rollouts), i % rollouts, i + 1] as Read);

describe('run keys health', () => {
  it('finds nothing wrong when every planned key has one result', () => {
    const { keys } = keysOf([...plan(2, 2), ['result', 0, 0, 101, 1], ['result', 1, 1, 102, 0.5], ['result', 0, 1, 103, 0], ['result', 1, 0, 104, 1]]);
    assert.deepEqual(check(keys), {
      findings: [],
      rollouts: { total: 4, healthy: 4, warning: 0, unhealthy: 0, evaluation_only: 0, failed: 0 },
      tasks: healthy(2),
    });
  });

  it('has no counts before its findings were all taken', () => {
    const { keys } = keysOf([...plan(2, 1)]);
    const message = /RunKeysHealth\.counts\(\) before findings\(\) were all taken/;
    assert.throws(() => keys.counts(), message);
    const findings = keys.findings(String);
    findings.next();
    assert.throws(() => keys.counts(), message);
    [...findings];
    assert.equal(keys.counts().rollouts.total, 2);
  });

  describe('duplicate-plan and duplicate-rollout', () => {
    it('names a key planned twice once, by its first two plans, at the second', () => {
      const { keys } = keysOf([...plan(1, 2), ['plan', 0, 1, 7], ['plan', 0, 1, 8], ['result', 0, 0, 101, 1], ['result', 0, 1, 102, 1]]);
      const { findings, rollouts, tasks } = check(keys);
      assert.deepEqual(findings, ['0:1 @ 7: duplicate-plan (error): rollout 0:1 is planned twice: line 2 and line 7']);
      assert.deepEqual(rollouts, { total: 2, healthy: 1, warning: 0, unhealthy: 1, evaluation_only: 0, failed: 0 });
      assert.deepEqual(tasks, { total: 1, healthy: 0, warning: 0, unhealthy: 1 });
    });

    it('names each successful row past the first of a key, with the first', () => {
      const { keys } = keysOf([...plan(1, 2), ['result', 0, 0, 101, 1], ['result', 0, 1, 102, 1], ['result', 0, 1, 103, 1], ['result', 0, 1, 104, 1]]);
      assert.deepEqual(check(keys).findings, [
        '0:1 @ 103: duplicate-rollout (error): rollout 0:1 has two successful rows: line 102 and line 103',
        '0:1 @ 104: duplicate-rollout (error): rollout 0:1 has two successful rows: line 102 and line 104',
      ]);
    });

    it('takes a result beside a failure of the same key for no duplicate (a retry that succeeded)', () => {
      const { keys } = keysOf([...plan(1, 1), ['failure', 0, 0, 201], ['result', 0, 0, 101, 1]]);
      assert.deepEqual(check(keys), {
        findings: [],
        rollouts: { total: 1, healthy: 1, warning: 0, unhealthy: 0, evaluation_only: 0, failed: 0 },
        tasks: healthy(1),
      });
    });
  });

  describe('unplanned-rollout and missing-rollout', () => {
    it('names a result or failure whose key the plan does not hold, at its first row', () => {
      const { keys } = keysOf([...plan(1, 1), ['result', 0, 0, 101, 1], ['failure', 0, 3, 201], ['result', 0, 3, 102, 1], ['result', 2, 0, 103, 1]]);
      assert.deepEqual(check(keys).findings, [
        '0:3 @ 201: unplanned-rollout (error): rollout 0:3 is not in the materialized inputs',
        '2:0 @ 103: unplanned-rollout (error): rollout 2:0 is not in the materialized inputs',
      ]);
    });

    it('plans nothing without materialized inputs: no key is unplanned', () => {
      const { keys } = keysOf([
        ['result', 0, 0, 101, 1],
        ['result', 0, 1, 102, 1],
      ]);
      assert.deepEqual(check(keys).findings, []);
    });

    it('names a planned key with neither a result nor a failure, at its plan', () => {
      const { keys } = keysOf([...plan(1, 3), ['result', 0, 0, 101, 1], ['failure', 0, 2, 201]]);
      const { findings, rollouts, tasks } = check(keys);
      assert.deepEqual(findings, ['0:1 @ 2: missing-rollout (error): rollout 0:1 is planned (line 2) but has neither a result nor a failure']);
      assert.deepEqual(rollouts, { total: 3, healthy: 1, warning: 0, unhealthy: 1, evaluation_only: 0, failed: 1 });
      assert.deepEqual(tasks, { total: 1, healthy: 0, warning: 0, unhealthy: 1 });
    });
  });

  describe('task-all-failed', () => {
    it('names a task none of whose rollouts succeeded, counting its failed keys and naming the first', () => {
      // Task 1's failures are read in reverse: the first named is its first key's.
      const { keys } = keysOf([
        ...plan(2, 2),
        ['result', 0, 0, 101, 1],
        ['result', 0, 1, 102, 1],
        ['failure', 1, 1, 201],
        ['failure', 1, 0, 202],
        ['failure', 1, 0, 203],
      ]);
      const { findings, rollouts, tasks } = check(keys);
      assert.deepEqual(findings, ['1:- @ 202: task-all-failed (error): task 1: none of its 2 rollouts succeeded; 2 failed (first: line 202)']);
      assert.deepEqual(rollouts, { total: 4, healthy: 2, warning: 0, unhealthy: 2, evaluation_only: 0, failed: 0 });
      assert.deepEqual(tasks, { total: 2, healthy: 1, warning: 0, unhealthy: 1 });
    });

    it('counts the missing rollouts of such a task among those that did not succeed, after their own findings', () => {
      const { keys } = keysOf([...plan(1, 3), ['failure', 0, 2, 201]]);
      assert.deepEqual(check(keys).findings, [
        '0:0 @ 1: missing-rollout (error): rollout 0:0 is planned (line 1) but has neither a result nor a failure',
        '0:1 @ 2: missing-rollout (error): rollout 0:1 is planned (line 2) but has neither a result nor a failure',
        '0:- @ 201: task-all-failed (error): task 0: none of its 3 rollouts succeeded; 1 failed (first: line 201)',
      ]);
    });

    it('is not said of a task with one success, nor of one with no failure at all', () => {
      const { keys } = keysOf([...plan(2, 2), ['failure', 0, 0, 201], ['result', 0, 1, 101, 1]]);
      const { findings, rollouts, tasks } = check(keys);
      assert.deepEqual(findings, [
        '1:0 @ 3: missing-rollout (error): rollout 1:0 is planned (line 3) but has neither a result nor a failure',
        '1:1 @ 4: missing-rollout (error): rollout 1:1 is planned (line 4) but has neither a result nor a failure',
      ]);
      assert.deepEqual(rollouts, { total: 4, healthy: 1, warning: 0, unhealthy: 2, evaluation_only: 0, failed: 1 });
      assert.deepEqual(tasks, { total: 2, healthy: 1, warning: 0, unhealthy: 1 });
    });
  });

  describe('task-all-zero-reward', () => {
    it('warns of a task whose two or more scored rollouts all scored 0, at the first', () => {
      const { keys } = keysOf([...plan(2, 2), ['result', 0, 0, 101, 1], ['result', 0, 1, 102, 0], ['result', 1, 1, 103, 0], ['result', 1, 0, 104, -0]]);
      const { findings, rollouts, tasks } = check(keys);
      assert.deepEqual(findings, ['1:- @ 104: task-all-zero-reward (warning): task 1: all 2 successful rollouts scored 0']);
      assert.deepEqual(rollouts, { total: 4, healthy: 2, warning: 2, unhealthy: 0, evaluation_only: 0, failed: 0 });
      assert.deepEqual(tasks, { total: 2, healthy: 1, warning: 1, unhealthy: 0 });
    });

    it('needs two scored rollouts: a single one, or one beside an unscored one, is not enough', () => {
      for (const reads of [
        [['result', 0, 0, 101, 0]],
        [
          ['result', 0, 0, 101, Number.NaN],
          ['result', 0, 1, 102, 0],
        ],
        [
          ['result', 0, 0, 101, 0],
          ['failure', 0, 1, 201],
        ],
      ] as Read[][]) {
        assert.deepEqual(check(keysOf(reads).keys).findings, [], JSON.stringify(reads));
      }
    });

    it('counts only the scored rollouts, and flags only them', () => {
      const { keys } = keysOf([
        ['result', 0, 0, 101, Number.NaN],
        ['result', 0, 1, 102, 0],
        ['result', 0, 2, 103, 0],
      ]);
      const { findings, rollouts } = check(keys);
      assert.deepEqual(findings, ['0:- @ 102: task-all-zero-reward (warning): task 0: all 2 successful rollouts scored 0']);
      assert.deepEqual(rollouts, { total: 3, healthy: 1, warning: 2, unhealthy: 0, evaluation_only: 0, failed: 0 });
    });

    it('takes a result given no reward for unscored', () => {
      const keys = new RunKeysHealth();
      keys.add('result', 0, 0, 101);
      keys.add('result', 0, 1, 102);
      assert.deepEqual(check(keys).findings, []);
    });
  });

  describe('counts', () => {
    it("count each key once, by the worst finding of any of its rows' own checks", () => {
      const { keys, positions } = keysOf([
        ['result', 0, 0, 101, 1],
        ['result', 0, 1, 102, 1],
        ['result', 0, 2, 103, 1],
        ['result', 1, 0, 104, 1],
        ['failure', 1, 1, 201],
        ['result', 1, 1, 105, 1],
      ]);
      keys.flag(positions[0]!, 'warning');
      keys.flag(positions[1]!, 'warning');
      keys.flag(positions[1]!, 'error');
      keys.flag(positions[2]!, 'error');
      keys.flag(positions[2]!, 'warning');
      keys.flag(positions[4]!, 'error');
      const { findings, rollouts, tasks } = check(keys);
      assert.deepEqual(findings, []);
      assert.deepEqual(rollouts, { total: 5, healthy: 1, warning: 1, unhealthy: 3, evaluation_only: 0, failed: 0 });
      assert.deepEqual(tasks, { total: 2, healthy: 0, warning: 0, unhealthy: 2 });
    });

    it('count a key with only failures as failed, and a task as its worst key', () => {
      const { keys, positions } = keysOf([
        ['result', 0, 0, 101, 1],
        ['failure', 0, 1, 201],
        ['failure', 0, 1, 202],
        ['result', 1, 0, 102, 1],
        ['result', 1, 1, 103, 1],
      ]);
      keys.flag(positions[4]!, 'warning');
      const { rollouts, tasks } = check(keys);
      assert.deepEqual(rollouts, { total: 4, healthy: 2, warning: 1, unhealthy: 0, evaluation_only: 0, failed: 1 });
      assert.deepEqual(tasks, { total: 2, healthy: 1, warning: 1, unhealthy: 0 });
    });

    it('count an evaluation-only rollout apart unless it has an error; its warnings still make its task a warning', () => {
      // Planned, as collect plans them: the key's plan is no evaluation-only row, its result is.
      const { keys, positions } = keysOf([
        ['result', 0, 0, 101, 1],
        ['result', 1, 0, 102, 1],
        ['result', 2, 0, 103, 1],
        ['result', 3, 0, 104, 1],
        ...plan(4, 1),
      ]);
      keys.markEvaluationOnly(positions[0]!);
      keys.flag(positions[1]!, 'warning');
      keys.markEvaluationOnly(positions[1]!);
      keys.markEvaluationOnly(positions[2]!);
      keys.flag(positions[2]!, 'error');
      keys.markEvaluationOnly(positions[3]!);
      keys.flag(positions[3]!, 'warning');
      const { rollouts, tasks } = check(keys);
      assert.deepEqual(rollouts, { total: 4, healthy: 0, warning: 0, unhealthy: 1, evaluation_only: 3, failed: 0 });
      assert.deepEqual(tasks, { total: 4, healthy: 1, warning: 2, unhealthy: 1 });
    });
  });

  describe('order', () => {
    /** A finding's key, origin and check. */
    const head = (finding: string) => finding.slice(0, finding.indexOf(' ('));

    it('gives findings task by task, key by key, whatever order the keys were read in, a task after its keys', () => {
      const { keys } = keysOf([
        ['plan', 1, 0, 1],
        ['failure', 0, 1, 201],
        ['plan', 0, 1, 2],
        ['plan', 0, 0, 3],
        ['plan', 10, 0, 4],
        ['plan', 2, 0, 5],
        ['result', 2, 0, 101, 1],
      ]);
      assert.deepEqual(check(keys).findings.map(head), [
        '0:0 @ 3: missing-rollout',
        '0:- @ 201: task-all-failed',
        '1:0 @ 1: missing-rollout',
        '10:0 @ 4: missing-rollout',
      ]);
    });

    it("gives a key's findings as duplicate plan, duplicate rows, unplanned, missing", () => {
      const { keys } = keysOf([
        ['plan', 0, 0, 1],
        ['plan', 0, 0, 2],
        ['result', 0, 1, 101, 1],
        ['result', 0, 1, 102, 1],
        ['plan', 0, 1, 3],
        ['plan', 0, 1, 4],
        ['result', 0, 2, 103, 1],
        ['result', 0, 2, 104, 1],
      ]);
      assert.deepEqual(check(keys).findings.map(head), [
        '0:0 @ 2: duplicate-plan',
        '0:0 @ 1: missing-rollout',
        '0:1 @ 4: duplicate-plan',
        '0:1 @ 102: duplicate-rollout',
        '0:2 @ 104: duplicate-rollout',
        '0:2 @ 103: unplanned-rollout',
      ]);
    });
  });
});

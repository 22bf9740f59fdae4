import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConcurrencyLimit, runJobs } from '../../src/engine/index.js';

/** Jobs whose ends the spec decides: each runs until `finish(job)`, and `running` lists those in flight. */
function heldJobs(count: number) {
  const running = new Set<number>();
  const ends = new Map<number, () => void>();
  const started: number[] = [];
  const run = (job: number) =>
    new Promise<void>((resolve) => {
      running.add(job);
      started.push(job);
      ends.set(job, () => {
        running.delete(job);
        resolve();
      });
    });
  const finish = async (...jobs: number[]) => {
    for (const job of jobs) ends.get(job)!();
    await new Promise((resolve) => setImmediate(resolve));
  };
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { jobs: Array.from({ length: count }, (_, i) => i), running, started, run, finish, settle };
}

describe('a concurrency limit that moves (concurrency auto)', () => {
  it('runs at most limit.current jobs at once, never more than the schedule allows', async () => {
    const held = heldJobs(20);
    const limit = new ConcurrencyLimit(3);
    const done = runJobs(held.jobs, { schedule: { kind: 'async', concurrency: 8 }, limit }, (job) => held.run(job));
    await held.settle();
    assert.deepEqual([...held.running], [0, 1, 2]);

    limit.set(6);
    await held.settle();
    assert.deepEqual([...held.running], [0, 1, 2, 3, 4, 5], 'raised: more start at once');

    limit.set(2);
    await held.finish(0, 1, 2);
    assert.deepEqual([...held.running], [3, 4, 5], 'lowered: the jobs running finish, none start while more than 2 run');
    await held.finish(3, 4);
    assert.deepEqual([...held.running], [5, 6], 'and new ones start once fewer run');

    limit.set(100);
    await held.settle();
    assert.equal(held.running.size, 8, 'capped by the schedule');
    while (held.running.size > 0) await held.finish(...held.running);
    await done;
    assert.equal(held.started.length, 20);
  });

  it('ends once the jobs run out, with slots still waiting above the limit', async () => {
    const held = heldJobs(3);
    const limit = new ConcurrencyLimit(1);
    const done = runJobs(held.jobs, { schedule: { kind: 'async', concurrency: 50 }, limit }, (job) => held.run(job));
    for (let job = 0; job < 3; job++) {
      await held.settle();
      await held.finish(job);
    }
    await done;
    assert.deepEqual(held.started, [0, 1, 2]);
  });

  it('is refused with the lockstep schedule, whose batches have one size', async () => {
    await assert.rejects(
      runJobs([1], { schedule: { kind: 'lockstep', concurrency: 4 }, limit: new ConcurrencyLimit(2) }, async () => {}),
      (error: Error & { kind?: string }) => error.kind === 'config' && /async schedule/.test(error.message),
    );
  });
});

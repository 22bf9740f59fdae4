import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runJobs } from '../../src/engine/index.js';

const tick = (ms = 1) => new Promise((resolve) => setTimeout(resolve, ms));

/** Jobs 0..count-1, counting how many were pulled: admission must be lazy. */
function countedJobs(count: number) {
  const pulled = { count: 0 };
  function* jobs() {
    for (let i = 0; i < count; i++) {
      pulled.count += 1;
      yield i;
    }
  }
  return { jobs: jobs(), pulled };
}

describe('the scheduler', () => {
  it('runs every job with at most `concurrency` in flight, pulling jobs only as capacity frees', async () => {
    const { jobs, pulled } = countedJobs(50);
    let inFlight = 0;
    let peak = 0;
    const done: number[] = [];
    await runJobs(jobs, { schedule: { kind: 'async', concurrency: 4 } }, async (job) => {
      assert.ok(pulled.count <= done.length + 4, `pulled ${pulled.count} with ${done.length} done`);
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await tick(job % 3);
      inFlight -= 1;
      done.push(job);
    });
    assert.equal(peak, 4);
    assert.deepEqual(
      [...done].sort((a, b) => a - b),
      Array.from({ length: 50 }, (_, i) => i),
    );
  });

  it('stops admitting when told, and lets the jobs in flight finish', async () => {
    const stop = new AbortController();
    const finished: number[] = [];
    await runJobs(countedJobs(100).jobs, { schedule: { kind: 'async', concurrency: 3 }, stopAdmitting: stop.signal }, async (job, control) => {
      if (job === 5) stop.abort();
      await tick(2);
      assert.equal(control.signal.aborted, false);
      finished.push(job);
    });
    assert.ok(finished.includes(5));
    assert.ok(finished.length <= 8, `admitted ${finished.length} jobs`);
  });

  it('aborts the jobs in flight through their control signal', async () => {
    const abort = new AbortController();
    const seen: boolean[] = [];
    await runJobs(countedJobs(10).jobs, { schedule: { kind: 'async', concurrency: 2 }, signal: abort.signal }, async (job, control) => {
      if (job === 1) abort.abort();
      await tick(1);
      seen.push(control.signal.aborted);
    });
    assert.deepEqual(seen, [true, true]);
  });

  it('after a job throws, admits nothing more, finishes the others, then throws', async () => {
    const finished: number[] = [];
    await assert.rejects(
      runJobs(countedJobs(100).jobs, { schedule: { kind: 'async', concurrency: 3 } }, async (job) => {
        if (job === 4) throw new Error('boom');
        await tick(3);
        finished.push(job);
      }),
      /boom/,
    );
    assert.ok(finished.length >= 2 && finished.length <= 6, `finished ${finished.join(',')}`);
  });

  it('lockstep: runs batches of `concurrency`, and every turn waits for the batch', async () => {
    const events: string[] = [];
    await runJobs(countedJobs(5).jobs, { schedule: { kind: 'lockstep', concurrency: 2 } }, async (job, control) => {
      for (let turn = 0; turn < 2; turn++) {
        await control.pace!();
        events.push(`${job}:${turn}`);
        await tick(job === 0 ? 5 : 0);
      }
    });
    // Job 1 cannot start turn 1 before slow job 0 finished turn 0; job 2 starts only after the first batch.
    assert.deepEqual(
      events.slice(0, 4).map((event) => event.split(':')[1]),
      ['0', '0', '1', '1'],
    );
    assert.ok(events.indexOf('2:0') > events.indexOf('0:1'));
    assert.equal(events.length, 10);
  });

  it('refuses a concurrency below 1 or not whole, naming the field', async () => {
    for (const concurrency of [0, -1, 1.5, Number.NaN]) {
      await assert.rejects(
        runJobs([1], { schedule: { kind: 'async', concurrency } }, async () => {}),
        { kind: 'config', message: /schedule\.concurrency/ },
      );
    }
  });

  it('stops waiting on a job source that has nothing yet when told to stop', async () => {
    const stop = new AbortController();
    async function* live() {
      yield 1;
      await new Promise(() => {});
    }
    const ran: number[] = [];
    setTimeout(() => stop.abort(), 20);
    await runJobs(live(), { schedule: { kind: 'async', concurrency: 2 }, stopAdmitting: stop.signal }, async (job) => void ran.push(job));
    assert.deepEqual(ran, [1]);
  });
});

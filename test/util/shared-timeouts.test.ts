import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { deadlineSignal } from '../../src/util/deadline-signal.js';
import { startTimeout, stopTimeout } from '../../src/util/shared-timeouts.js';
import { subscribeAbort } from '../../src/util/subscribe-abort.js';

const timers = () => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;

describe('deadlines in flight (startTimeout, deadlineSignal)', () => {
  it('of one delay hold one timer however many wait, each told once, in order, not before its own time, and none is left after', async () => {
    const before = timers();
    const told: number[] = [];
    const early: number[] = [];
    for (let i = 0; i < 100; i++) {
      const due = performance.now() + 40;
      startTimeout(
        {
          onTimeout: () => {
            told.push(i);
            // A millisecond of rounding, as Node's own timers allow.
            if (performance.now() < due - 1) early.push(i);
          },
        },
        40,
      );
      if (i === 49) await sleep(20);
    }
    assert.equal(timers(), before + 1);
    await sleep(100);
    assert.deepEqual({ told, early }, { told: Array.from({ length: 100 }, (_, i) => i), early: [] });
    assert.equal(timers(), before);
  });

  it('stopped before their time are never told, and the last one stopped takes the timer with it', async () => {
    const before = timers();
    const told: string[] = [];
    const watchers = ['a', 'b', 'c'].map((name) => ({ onTimeout: () => told.push(name) }));
    for (const watcher of watchers) startTimeout(watcher, 20);
    stopTimeout(watchers[1]!, 20);
    await sleep(40);
    assert.deepEqual(told, ['a', 'c']);
    for (const watcher of watchers) startTimeout(watcher, 1_000);
    for (const watcher of watchers) stopTimeout(watcher, 1_000);
    assert.equal(timers(), before, 'no timer keeps the process alive once nothing waits');
  });

  it('past the largest delay a timer takes, or under 1 ms, are told after 1 ms, as setTimeout does', async () => {
    const before = timers();
    const told: string[] = [];
    startTimeout({ onTimeout: () => told.push('3e9') }, 3e9);
    startTimeout({ onTimeout: () => told.push('0') }, 0);
    await sleep(30);
    assert.deepEqual(told.sort(), ['0', '3e9']);
    assert.equal(timers(), before);
  });

  it('abort episode signals with a TimeoutError at their deadline, one timer for them all', async () => {
    const before = timers();
    const deadlines = Array.from({ length: 50 }, () => deadlineSignal(undefined, 20));
    assert.equal(timers(), before + 1);
    await sleep(40);
    assert.ok(deadlines.every(({ signal }) => signal.aborted && (signal.reason as DOMException).name === 'TimeoutError'));
    for (const deadline of deadlines) deadline.dispose();
    assert.equal(timers(), before);
  });
});

describe("an episode's signal watched by its request (deadlineSignal, subscribeAbort)", () => {
  it('holds no abort listener, and the watcher is told when the run or the deadline aborts it', async () => {
    const run = new AbortController();
    const byRun = deadlineSignal(run.signal, undefined);
    const byDeadline = deadlineSignal(run.signal, 10);
    const reasons: unknown[] = [];
    subscribeAbort(byRun.signal, (reason) => reasons.push(reason));
    subscribeAbort(byDeadline.signal, (reason) => reasons.push((reason as DOMException).name));
    assert.deepEqual([getEventListeners(byRun.signal, 'abort').length, getEventListeners(byDeadline.signal, 'abort').length], [0, 0]);
    await sleep(30);
    const stop = new Error('stop the run');
    run.abort(stop);
    assert.deepEqual(reasons, ['TimeoutError', stop]);
    byRun.dispose();
    byDeadline.dispose();
  });

  it('tells a watcher that unsubscribed nothing, and its own listeners still hear the abort', () => {
    const deadline = deadlineSignal(undefined, undefined);
    const told: string[] = [];
    const unsubscribe = subscribeAbort(deadline.signal, () => told.push('unsubscribed'));
    subscribeAbort(deadline.signal, () => told.push('watcher'));
    deadline.signal.addEventListener('abort', () => told.push('listener'));
    unsubscribe();
    deadline.abort(new Error('over'));
    assert.deepEqual(told.sort(), ['listener', 'watcher']);
    deadline.dispose();
  });
});

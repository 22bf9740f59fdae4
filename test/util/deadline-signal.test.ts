import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import { deadlineSignal } from '../../src/util/deadline-signal.js';
import { raceAbort } from '../../src/util/race-abort.js';
import { subscribeAbort, WatchedAbortController } from '../../src/util/subscribe-abort.js';

const abortListeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

describe('deadline signals on a shared run signal (deadlineSignal, subscribeAbort)', () => {
  it('hold one listener on the run signal however many are alive, and none once all are disposed', () => {
    const run = new AbortController();
    const alive = Array.from({ length: 1_000 }, () => deadlineSignal(run.signal, 60_000));
    assert.equal(abortListeners(run.signal), 1);
    for (const deadline of alive) deadline.dispose();
    assert.equal(abortListeners(run.signal), 0);
  });

  it('leak nothing over 100,000 episodes, 64 at a time', () => {
    const run = new AbortController();
    const window: ReturnType<typeof deadlineSignal>[] = [];
    let most = 0;
    for (let episode = 0; episode < 100_000; episode++) {
      window.push(deadlineSignal(run.signal, 60_000));
      if (window.length > 64) window.shift()!.dispose();
      most = Math.max(most, abortListeners(run.signal));
    }
    for (const deadline of window) deadline.dispose();
    assert.deepEqual({ most, after: abortListeners(run.signal) }, { most: 1, after: 0 });
  });

  it('abort every live child with the run signal’s reason, and leave disposed ones alone', () => {
    const run = new AbortController();
    const live = [deadlineSignal(run.signal, undefined), deadlineSignal(run.signal, 60_000)];
    const disposed = deadlineSignal(run.signal, undefined);
    disposed.dispose();
    const reason = new Error('stop the run');
    run.abort(reason);
    assert.deepEqual(
      live.map((deadline) => deadline.signal.reason),
      [reason, reason],
    );
    assert.equal(disposed.signal.aborted, false);
    for (const deadline of live) deadline.dispose();
    assert.equal(abortListeners(run.signal), 0);
  });

  it('start aborted under an aborted run signal, adding no listener', () => {
    const run = new AbortController();
    run.abort('gone');
    const deadline = deadlineSignal(run.signal, undefined);
    assert.deepEqual([deadline.signal.aborted, deadline.signal.reason, abortListeners(run.signal)], [true, 'gone', 0]);
  });

  it('time out with a TimeoutError, leaving the run signal and the other children untouched', async () => {
    const run = new AbortController();
    const quick = deadlineSignal(run.signal, 5);
    const other = deadlineSignal(run.signal, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal((quick.signal.reason as DOMException).name, 'TimeoutError');
    assert.deepEqual([run.signal.aborted, other.signal.aborted], [false, false]);
    quick.dispose();
    other.dispose();
    assert.equal(abortListeners(run.signal), 0);
  });

  it('let a child abort alone (abort), the run signal untouched', () => {
    const run = new AbortController();
    const deadline = deadlineSignal(run.signal, undefined);
    deadline.abort('this one');
    assert.deepEqual([deadline.signal.reason, run.signal.aborted], ['this one', false]);
    deadline.dispose();
  });

  it("tell the watchers of a deadline's own signal without a listener on it, however it aborts", async () => {
    const run = new AbortController();
    const byHand = deadlineSignal(run.signal, undefined);
    const byTimer = deadlineSignal(run.signal, 5);
    const byRun = deadlineSignal(run.signal, undefined);
    const told: unknown[][] = [[], [], []];
    const unsubscribes = [byHand, byTimer, byRun].map((deadline, i) => [
      subscribeAbort(deadline.signal, (reason) => told[i]!.push(reason)),
      subscribeAbort(deadline.signal, (reason) => told[i]!.push(`second ${String(reason)}`)),
    ]);
    const gone = subscribeAbort(byHand.signal, () => told[0]!.push('unsubscribed first'));
    gone();
    assert.deepEqual(
      [byHand, byTimer, byRun].map((deadline) => abortListeners(deadline.signal)),
      [0, 0, 0],
    );
    byHand.abort('by hand');
    await new Promise((resolve) => setTimeout(resolve, 30));
    run.abort('the run');
    assert.deepEqual(told, [
      ['by hand', 'second by hand'],
      [byTimer.signal.reason, `second ${String(byTimer.signal.reason)}`],
      ['the run', 'second the run'],
    ]);
    for (const unsubscribe of unsubscribes.flat()) unsubscribe();
    for (const deadline of [byHand, byTimer, byRun]) deadline.dispose();
  });

  it('abort a WatchedAbortController once: a second abort tells no one again and keeps the first reason', () => {
    const controller = new WatchedAbortController();
    const told: unknown[] = [];
    subscribeAbort(controller.signal, (reason) => told.push(reason));
    const listener: unknown[] = [];
    controller.signal.addEventListener('abort', () => listener.push(controller.signal.reason));
    controller.abort('first');
    controller.abort('second');
    assert.deepEqual({ told, listener, reason: controller.signal.reason }, { told: ['first'], listener: ['first'], reason: 'first' });
  });

  it('tell each subscriber once, even one that unsubscribes after the abort', () => {
    const run = new AbortController();
    const told: unknown[] = [];
    const unsubscribe = subscribeAbort(run.signal, (reason) => told.push(reason));
    run.abort('once');
    unsubscribe();
    assert.deepEqual(told, ['once']);
  });
});

describe('raceAbort', () => {
  it('settles with the promise and lets go of the signal', async () => {
    const run = new AbortController();
    const waits = Array.from({ length: 100 }, (_, i) => raceAbort(Promise.resolve(i), run.signal));
    assert.equal(abortListeners(run.signal), 1);
    assert.equal((await Promise.all(waits)).length, 100);
    assert.equal(abortListeners(run.signal), 0);
  });

  it('rejects every waiter with the signal’s reason when it aborts first', async () => {
    const run = new AbortController();
    const never = new Promise<number>(() => {});
    const waits = [raceAbort(never, run.signal), raceAbort(never, run.signal)];
    run.abort(new Error('stopped'));
    for (const wait of waits) await assert.rejects(wait, /stopped/);
    await assert.rejects(raceAbort(never, run.signal), /stopped/);
  });

  it('on abort, skip a callback an earlier one unsubscribed (as EventTarget does)', () => {
    const run = new AbortController();
    const called: string[] = [];
    let unsubscribeLast = () => {};
    subscribeAbort(run.signal, () => {
      called.push('first');
      unsubscribeLast();
    });
    unsubscribeLast = subscribeAbort(run.signal, () => called.push('unsubscribed'));
    subscribeAbort(run.signal, () => called.push('after'));
    run.abort();
    assert.deepEqual(called, ['first', 'after']);
  });
});

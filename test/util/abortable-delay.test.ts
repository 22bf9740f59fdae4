import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import { abortableDelay } from '../../src/util/abortable-delay.js';

describe('abortableDelay', () => {
  it('waits, and lets go of the signal once it has waited', async () => {
    const signal = new AbortController().signal;
    const started = performance.now();
    await abortableDelay(20, signal);
    // setTimeout may fire a millisecond early by the clock it is read with.
    assert.ok(performance.now() - started >= 19);
    assert.equal(getEventListeners(signal, 'abort').length, 0);
  });

  it("rejects with the signal's own reason, not an AbortError wrapping it, at once or before it starts", async () => {
    const controller = new AbortController();
    const reason = new DOMException('deadline of 5 ms passed', 'TimeoutError');
    const waiting = abortableDelay(60_000, controller.signal);
    controller.abort(reason);
    await assert.rejects(waiting, (error) => error === reason);
    await assert.rejects(abortableDelay(10, controller.signal), (error) => error === reason);
  });
});

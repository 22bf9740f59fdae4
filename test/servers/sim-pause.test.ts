import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { finished, ids, profileWith, virtualEngine } from '../support/sim-engine.js';

const reply = (length: number) => ({ ids: ids(length, 9000), finish: 'length' as const, seed: 0 });

describe('simulated engine: pause and resume (a weight refit)', () => {
  it('keep: freezes requests where they are; the time paused is idle, not busy', async () => {
    const { engine, clock } = virtualEngine(profileWith());
    const request = engine.submit(ids(100), reply(1000));
    await clock.sleepUntil(1);
    await engine.pause('keep', false);
    const frozen = request.outputLength;
    const busy = engine.accounting.busySeconds;
    await clock.sleepUntil(5);
    assert.equal(request.outputLength, frozen);
    assert.equal(engine.accounting.busySeconds, busy);
    engine.resume();
    await finished(request);
    assert.ok(Math.abs(engine.accounting.busySeconds - (request.lastTokenAt! - 5 + busy)) < 1e-9, 'busy before the pause and after it, nothing between');
  });

  it('wait: the requests already in finish, later ones wait for the resume', async () => {
    const { engine, clock } = virtualEngine(profileWith());
    const before = engine.submit(ids(100), reply(200));
    await clock.sleepUntil(0.1);
    const pausing = engine.pause('wait');
    const after = engine.submit(ids(50, 5000), reply(10));
    await pausing;
    assert.equal(before.status, 'finished');
    assert.equal(engine.state, 'paused');
    assert.equal(after.status, 'waiting');
    assert.equal(clock.now(), before.lastTokenAt, 'paused as soon as the last request in finished');
    engine.resume();
    await finished(after);
  });

  it('a pause still waiting for its requests ends when generation resumes, or when a keep pause takes over', async () => {
    const { engine } = virtualEngine(profileWith());
    engine.submit(ids(100), reply(5000));
    const waiting = engine.pause('wait');
    engine.resume();
    await waiting;
    assert.equal(engine.state, 'serving');
    const waitingAgain = engine.pause('wait');
    await engine.pause('keep');
    await waitingAgain;
    assert.equal(engine.state, 'paused');
  });
});

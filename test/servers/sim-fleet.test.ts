import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { startSimFleet, VirtualClock, type StartedSimFleet } from '../../src/testing/index.js';
import { qwen3Template, qwen3Tokenizer } from '../support/qwen3.js';
import { finished, ids } from '../support/sim-engine.js';

const tokenizer = { tokenizer: await qwen3Tokenizer(), template: await qwen3Template(), source: 'Qwen3' };
const fleets: StartedSimFleet[] = [];
after(() => Promise.all(fleets.map((fleet) => fleet.close())));

describe('simulated fleet: one clock, per-replica accounting, outages', () => {
  it("accounts each replica's busy time on the fleet's clock, and its busy timeline adds up to it", async () => {
    const clock = new VirtualClock();
    const started = await startSimFleet({ replicas: 2, clock, tokenizer, timelineBucketSeconds: 0.5 });
    fleets.push(started);
    const [first, second] = started.fleet.replicas;
    // Replica 0 decodes 400 tokens from time 0; replica 1 starts one at time 1.
    const running = first!.engine.submit(ids(100), { ids: ids(400, 9000), finish: 'length', seed: 0 });
    await clock.sleepUntil(1);
    const later = second!.engine.submit(ids(100), { ids: ids(100, 9000), finish: 'length', seed: 0 });
    await Promise.all([finished(running), finished(later)]);
    const [busy, idleFirst] = started.reports();
    assert.equal(busy!.requestsEnded.length, 1);
    assert.ok(Math.abs(busy!.busySeconds - running.lastTokenAt!) < 1e-9, 'replica 0 was busy from 0 until its last token');
    assert.ok(Math.abs(idleFirst!.busySeconds - (later.lastTokenAt! - 1)) < 1e-9, 'replica 1 from its arrival at 1');
    for (const report of started.reports()) {
      const fromTimeline = report.busyTimeline.reduce((sum, fraction) => sum + fraction * report.timelineBucketSeconds, 0);
      assert.ok(Math.abs(fromTimeline - report.busySeconds) < 1e-9);
    }
    assert.deepEqual(idleFirst!.busyTimeline.slice(0, 2), [0, 0], 'replica 1 idle for its first second');
  });

  it('takes a replica down for a scheduled outage: its requests fail, new ones are refused, and it comes back', async () => {
    const clock = new VirtualClock();
    const started = await startSimFleet({ replicas: 2, clock, tokenizer, outages: [{ replica: 1, at: 1, duration: 2 }] });
    fleets.push(started);
    const engine = started.fleet.replicas[1]!.engine;
    const long = engine.submit(ids(100), { ids: ids(5000, 9000), finish: 'length', seed: 0 });
    await assert.rejects(finished(long), (error: Error & { kind?: string }) => error.kind === 'replica-down');
    assert.equal(clock.now(), 1);
    assert.equal(engine.state, 'down');
    assert.throws(() => engine.submit(ids(10), { ids: ids(5, 9000), finish: 'length', seed: 0 }), { kind: 'replica-down' });
    await clock.sleepUntil(3);
    assert.equal(engine.state, 'serving');
    await finished(engine.submit(ids(10), { ids: ids(5, 9000), finish: 'length', seed: 0 }));
    assert.equal(started.reports()[1]!.requestsEnded.abort, 1);
    assert.equal(started.fleet.replicas[0]!.engine.state, 'serving', 'the other replica was not touched');
  });
});

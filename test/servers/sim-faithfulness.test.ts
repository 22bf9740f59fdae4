import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinProfiles } from '../../src/servers/sim/builtin-profiles.js';
import type { SimStep } from '../../src/servers/sim/sim-engine.js';
import { finished, ids, profileWith, runRequest, virtualEngine } from '../support/sim-engine.js';

/** Within 5% of what the profile's model says. */
function assertNear(measured: number, expected: number, what: string): void {
  const error = Math.abs(measured - expected) / expected;
  assert.ok(error <= 0.05, `${what}: measured ${measured.toFixed(4)}, the profile's model says ${expected.toFixed(4)} (${(error * 100).toFixed(2)}% off)`);
}

describe('simulated engine: speed as the profile models it', () => {
  for (const profile of Object.values(builtinProfiles)) {
    it(`${profile.name}: one request decodes at 1 / (beta0 + beta2) tokens/s, its first token after beta0 + beta1 · prompt`, async () => {
      const { engine } = virtualEngine(profile);
      const { beta0, beta1, beta2 } = profile.stepTime;
      const request = await runRequest(engine, ids(1000), ids(200, 50_000));
      const decodeSeconds = request.lastTokenAt! - request.firstTokenAt!;
      assertNear(199 / decodeSeconds, 1 / (beta0 + beta2), 'decode tokens/s');
      assertNear(request.firstTokenAt! - request.arrival, beta0 + beta1 * 1000, 'time to first token (s)');
    });
  }

  it('throughput against concurrency follows C / (beta0 + beta2 · C) up to max_num_seqs, then stays there', async () => {
    const maxNumSeqs = 64;
    const profile = profileWith({ maxNumSeqs });
    const { beta0, beta2 } = profile.stepTime;
    for (const concurrency of [1, 4, 16, 64, 128, 256]) {
      const steps: SimStep[] = [];
      const { engine } = virtualEngine(profile, { onStep: (step) => steps.push(step) });
      const requests = Array.from({ length: concurrency }, (_, i) =>
        engine.submit(ids(128, 10_000 + i * 1000), { ids: ids(300, 100_000), finish: 'length', seed: 0 }),
      );
      await Promise.all(requests.map(finished));
      // The steady state: from the step in which the last admitted batch is all decoding, until the first request finishes.
      const batch = Math.min(concurrency, maxNumSeqs);
      const firstFinish = Math.min(...requests.map((request) => request.lastTokenAt!));
      const steady = steps.filter((step) => step.decodeTokens === batch && step.prefillTokens === 0 && step.end <= firstFinish);
      assert.ok(steady.length > 100, `${concurrency}: ${steady.length} steady steps`);
      const seconds = steady.reduce((sum, step) => sum + (step.end - step.start), 0);
      const tokens = steady.reduce((sum, step) => sum + step.decodeTokens, 0);
      const expected = batch / (beta0 + beta2 * batch);
      assertNear(tokens / seconds, expected, `tokens/s at concurrency ${concurrency}`);
      // No step ever ran more requests than max_num_seqs, or more tokens than max_num_batched_tokens.
      assert.ok(steps.every((step) => step.requests <= maxNumSeqs && step.prefillTokens + step.decodeTokens <= profile.engine.maxNumBatchedTokens));
    }
  });

  it('a whole run of up to max_num_batched_tokens of prompts takes one prefill step, then one decode step per token', async () => {
    const profile = builtinProfiles['llama-3.1-8b-h100']!;
    const { beta0, beta1, beta2 } = profile.stepTime;
    const { engine, clock } = virtualEngine(profile);
    const concurrency = 32;
    const prompt = 256;
    const output = 500;
    const requests = Array.from({ length: concurrency }, (_, i) =>
      engine.submit(ids(prompt, 10_000 + i * 1000), { ids: ids(output, 100_000), finish: 'length', seed: 0 }),
    );
    await Promise.all(requests.map(finished));
    const makespan = clock.now();
    const expected = beta0 + beta1 * concurrency * prompt + (output - 1) * (beta0 + beta2 * concurrency);
    assertNear(makespan, expected, 'makespan (s)');
    assertNear(engine.accounting.generationTokens / makespan, (concurrency * output) / expected, 'tokens/s over the run');
    assert.equal(engine.accounting.busySeconds.toFixed(9), makespan.toFixed(9));
  });
});

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EmbeddedPolicy } from '../../src/policy/index.js';
import { JinjaChatTemplate, TemplateRenderer, type HfTokenizer } from '../../src/tokens/index.js';
import type { RolloutGroup } from '../../src/train/grpo-trainer.js';
import { runGrpo } from '../../src/train/grpo-run.js';
import { keepFresh } from '../../src/train/staleness.js';

/** A group of one rollout whose turns were sampled by these versions (only what `keepFresh` reads). */
const sampledBy = (...versions: (number | undefined)[]) =>
  ({ records: [{ turns: versions.map((policy_version) => ({ policy_version })) }] }) as unknown as RolloutGroup;

describe('asynchronous training: versions are honest', () => {
  it('with --max-staleness 1, no turn a step learns from is more than 1 version older than the trainer, as metrics.jsonl shows', async () => {
    const policy = await EmbeddedPolicy.load();
    const tokenizer = policy.tokenizer as HfTokenizer;
    const renderer = new TemplateRenderer(tokenizer, JinjaChatTemplate.fromConfig(tokenizer.config), { drift: 'strict' });
    const output = join(mkdtempSync(join(tmpdir(), 'gymnast-async-')), 'run');
    try {
      // The KL penalty puts every rollout in the loss: a step trains longer than the next one takes to collect, so the sampler would run ahead if it could.
      const settings = { steps: 4, tasksPerStep: 2, groupSize: 4, heldOut: 4, evalEvery: 100, checkpointEvery: 100, maxTokens: 48, klCoefficient: 0.05 };
      await runGrpo({ policy, renderer, output, settings, async: { maxStaleness: 1 } });
    } finally {
      await policy.close();
    }
    const steps = readFileSync(join(output, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map(
        (line) => JSON.parse(line) as { step: number; policy_version: number; versions: Record<string, number>; staleness: Record<string, number>; kl: number },
      );
    // The sampler process computed the logprobs under the starting weights for the KL: at the first step, still those weights, it is 0.
    assert.equal(steps[0]!.kl, 0);
    assert.deepEqual(
      steps.map((step) => [step.step, step.policy_version]),
      [
        [1, 0],
        [2, 1],
        [3, 2],
        [4, 3],
      ],
    );
    const seen = new Set<number>();
    for (const step of steps) {
      assert.ok(Object.keys(step.versions).length > 0, `step ${step.step} trained on turns`);
      for (const [version, turns] of Object.entries(step.versions)) {
        const staleness = step.policy_version - Number(version);
        assert.ok(
          staleness >= 0 && staleness <= 1,
          `step ${step.step} (trainer at version ${step.policy_version}) learned from ${turns} turns of version ${version}`,
        );
        assert.equal(step.staleness[staleness], turns, `step ${step.step}: the staleness histogram agrees with the versions`);
        seen.add(staleness);
      }
    }
    assert.ok(seen.has(1), `the sampler ran ahead of the trainer (some turn 1 version old): ${JSON.stringify(steps.map((step) => step.versions))}`);
  });

  it('a trainer at version 2 with a bound of 1 drops, and counts, every group with a turn of version 0 or with no version', () => {
    const fresh = keepFresh([sampledBy(1, 2), sampledBy(1, 0), sampledBy(2), sampledBy(undefined)], 2, 1);
    assert.equal(fresh.groups.length, 2);
    assert.equal(fresh.dropped, 2);
    assert.deepEqual(fresh.versions, { 1: 1, 2: 2 });
    assert.deepEqual(fresh.staleness, { 0: 2, 1: 1 });
    assert.equal(fresh.mixedVersions, 1);
  });
});

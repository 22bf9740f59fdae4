import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EmbeddedPolicy } from '../../src/policy/index.js';
import { gymnast } from '../support/run-cli.js';

describe('gymnast train', () => {
  it('documents its flags', async () => {
    const { code, stdout } = await gymnast('train', '--help');
    assert.equal(code, 0);
    for (const flag of [
      '--output',
      '--steps',
      '--group-size',
      '--learning-rate',
      '--clip-epsilon',
      '--kl-coefficient',
      '--eval-every',
      '--eval-samples',
      '--checkpoint-every',
      '--async',
      '--max-staleness',
      '--in-flight',
    ]) {
      assert.match(stdout, new RegExp(flag));
    }
  });

  it('runs collect → step loops on the embedded model: metrics per step, a reward plot, checkpoints that load, and refuses to overwrite them', async () => {
    const output = join(mkdtempSync(join(tmpdir(), 'gymnast-train-')), 'run');
    const args = ['train', '--output', output, '--steps', '2', '--tasks-per-step', '4', '--group-size', '4', '--held-out', '12', '--eval-every', '1'];
    const { code, stdout, stderr } = await gymnast(...args);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /\[train\] step 2: reward /);
    assert.match(stdout, /held-out accuracy \d+\.\d% → \d+\.\d%, pass@1 \d+\.\d% → \d+\.\d% after 2 steps/);

    const steps = readFileSync(join(output, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      steps.map((step) => step.step),
      [1, 2],
    );
    for (const step of steps) {
      assert.equal(step.rollouts, 16);
      assert.ok(step.first_ratio_error < 1e-5, `step ${step.step}: max |ratio − 1| = ${step.first_ratio_error}`);
      for (const key of ['reward', 'pass_at_k', 'kl', 'clip_fraction', 'entropy', 'tokens_per_second', 'held_out_accuracy', 'held_out_pass_at_1'])
        assert.equal(typeof step[key], 'number', key);
    }
    const svg = readFileSync(join(output, 'reward.svg'), 'utf8');
    assert.match(svg, /^<svg /);
    assert.equal((svg.match(/<polyline /g) ?? []).length, 3, 'a training-reward line and two held-out lines (greedy, sampled)');

    const [start, trained] = await Promise.all([EmbeddedPolicy.load(), EmbeddedPolicy.load(join(output, 'checkpoints', 'step-2'))]);
    assert.notEqual(trained.model.sha256(), start.model.sha256(), 'the checkpoint holds the trained weights');

    const again = await gymnast(...args);
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, /--overwrite/);
  });
});

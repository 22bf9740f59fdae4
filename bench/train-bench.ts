import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPolicy } from '../src/policy/create-policy.js';
import { EmbeddedPolicy } from '../src/policy/embedded/embedded-policy.js';
import { runGrpo } from '../src/train/grpo-run.js';
import type { BenchLine } from './bench-result.js';

const STEPS = Number(process.env.TRAIN_STEPS ?? 40);

/**
 * `npm run bench -- train`: `gymnast train`'s loop from the committed weights on the small-products
 * tasks, and how far greedy accuracy on the 198 held-out tasks (never trained on) moves. The curve is
 * printed as it goes; the run's folder (metrics.jsonl, reward.svg, checkpoints) is named at the end.
 */
export async function trainLearning(): Promise<BenchLine[]> {
  const output = join(mkdtempSync(join(tmpdir(), 'gymnast-bench-train-')), 'run');
  const created = await createPolicy({ kind: 'embedded' });
  if (!(created.policy instanceof EmbeddedPolicy)) throw new Error('the embedded policy');
  const started = performance.now();
  try {
    const summary = await runGrpo({
      policy: created.policy,
      renderer: created.renderer,
      output,
      settings: { steps: STEPS, evalEvery: 5 },
      onStep: (step) => {
        const heldOut = step.held_out_accuracy === undefined ? '' : `, held-out ${(100 * step.held_out_accuracy).toFixed(1)}%`;
        process.stdout.write(
          `  step ${step.step}: reward ${step.reward.toFixed(3)}, KL ${step.kl.toExponential(1)}, ${((performance.now() - started) / 1000).toFixed(0)} s${heldOut}\n`,
        );
      },
    });
    const minutes = (performance.now() - started) / 60_000;
    process.stdout.write(
      `  held-out ${(100 * summary.startAccuracy).toFixed(1)}% → ${(100 * summary.endAccuracy).toFixed(1)}% in ${minutes.toFixed(1)} min; run in ${output}\n`,
    );
    return [
      {
        name: `GRPO on the embedded model, ${STEPS} steps of 8 tasks × 8 rollouts: held-out accuracy gained (greedy, 198 tasks never trained on)`,
        measured: { label: 'gain', value: 100 * (summary.endAccuracy - summary.startAccuracy), unit: 'points' },
        target: { label: 'gain', value: 20, unit: 'points', source: 'issue 29' },
        lowerIsBetter: false,
      },
      {
        name: 'GRPO on the embedded model: wall time of the run (collection, steps and held-out measurements)',
        measured: { label: 'wall', value: minutes, unit: 'min' },
        target: { label: 'wall', value: 10, unit: 'min', source: 'issue 29, on a 2-core machine' },
        lowerIsBetter: true,
      },
    ];
  } finally {
    await created.policy.close();
  }
}

import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPolicy } from '../src/policy/create-policy.js';
import { EmbeddedPolicy } from '../src/policy/embedded/embedded-policy.js';
import { runGrpo } from '../src/train/grpo-run.js';
import type { BenchLine } from './bench-result.js';

const STEPS = Number(process.env.TRAIN_STEPS ?? 40);

/**
 * `npm run bench -- train`: `gymnast train`'s loop from the committed weights on the small-products
 * tasks, and how far accuracy on the 198 held-out tasks (never trained on) moves: greedy, and pass@1
 * sampled as in training (4 rollouts per task). The curve is printed as it goes; the run's folder
 * (metrics.jsonl, reward.svg, checkpoints) is named at the end. Time is the process's CPU time (what
 * the issue budgets, and what other jobs on a shared machine change least) beside the wall time.
 */
export async function trainLearning(): Promise<BenchLine[]> {
  const output = join(mkdtempSync(join(tmpdir(), 'gymnast-bench-train-')), 'run');
  const created = await createPolicy({ kind: 'embedded' });
  if (!(created.policy instanceof EmbeddedPolicy)) throw new Error('the embedded policy');
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  const cpuMinutes = () => {
    const used = process.cpuUsage(cpuStart);
    return (used.user + used.system) / 60e6;
  };
  const percent = (value: number) => `${(100 * value).toFixed(1)}%`;
  try {
    const summary = await runGrpo({
      policy: created.policy,
      renderer: created.renderer,
      output,
      settings: { steps: STEPS, evalEvery: 10 },
      onStep: (step) => {
        const heldOut =
          step.held_out_accuracy === undefined
            ? ''
            : `, held-out ${percent(step.held_out_accuracy)} greedy, ${percent(step.held_out_pass_at_1 ?? 0)} pass@1, load ${loadavg()[0]!.toFixed(1)}`;
        process.stdout.write(
          `  step ${step.step}: reward ${step.reward.toFixed(3)}, KL ${step.kl.toExponential(1)}, ${((performance.now() - started) / 1000).toFixed(0)} s, CPU ${cpuMinutes().toFixed(1)} min${heldOut}\n`,
        );
      },
    });
    const minutes = (performance.now() - started) / 60_000;
    const cpu = cpuMinutes();
    const startPassAt1 = summary.startPassAt1 ?? 0;
    const endPassAt1 = summary.endPassAt1 ?? 0;
    process.stdout.write(
      `  held-out greedy ${percent(summary.startAccuracy)} → ${percent(summary.endAccuracy)}, pass@1 ${percent(startPassAt1)} → ${percent(endPassAt1)} ` +
        `in ${cpu.toFixed(1)} CPU min (${minutes.toFixed(1)} min wall, load average ${loadavg()[0]!.toFixed(1)}); run in ${output}\n`,
    );
    return [
      {
        name: `GRPO on the embedded model, ${STEPS} steps of 8 tasks × 8 rollouts, 2 minibatches: held-out pass@1 gained (4 rollouts sampled as in training per task, 198 tasks never trained on)`,
        measured: { label: 'gain', value: 100 * (endPassAt1 - startPassAt1), unit: 'points' },
        target: { label: 'gain', value: 20, unit: 'points', source: 'issue 29' },
        lowerIsBetter: false,
      },
      {
        name: 'GRPO on the embedded model: held-out accuracy gained, greedy (the same 198 tasks)',
        measured: { label: 'gain', value: 100 * (summary.endAccuracy - summary.startAccuracy), unit: 'points' },
        target: { label: 'gain', value: 20, unit: 'points', source: 'issue 29' },
        lowerIsBetter: false,
      },
      {
        name: 'GRPO on the embedded model: CPU time of the run (collection, steps and held-out measurements)',
        measured: { label: 'CPU', value: cpu, unit: 'min' },
        target: { label: 'CPU', value: 10, unit: 'min', source: 'issue 29, on a 2-core machine' },
        lowerIsBetter: true,
      },
      {
        name: 'GRPO on the embedded model: wall time of the run, on cores shared with other jobs',
        measured: { label: 'wall', value: minutes, unit: 'min' },
        target: { label: 'wall', value: 10, unit: 'min', source: 'issue 29, on a 2-core machine' },
        lowerIsBetter: true,
      },
    ];
  } finally {
    await created.policy.close();
  }
}

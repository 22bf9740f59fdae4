import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { OutputExistsError } from '../core/errors/output-exists-error.js';
import { ConfigError } from '../core/errors/config-error.js';
import { createPolicy } from '../policy/create-policy.js';
import { EmbeddedPolicy } from '../policy/embedded/embedded-policy.js';
import { GrpoRunSettings, type GrpoRunSettingsInput, type GrpoRunStep, runGrpo } from '../train/grpo-run.js';
import { numberFlag } from './flag-parsers.js';

interface TrainFlags extends GrpoRunSettingsInput {
  output: string;
  overwrite?: boolean;
}

const shape = GrpoRunSettings.shape;
const flag = (schema: { unwrap: () => unknown }) => numberFlag(schema.unwrap() as Parameters<typeof numberFlag>[0]);

/** `gymnast train`: GRPO on the embedded model, on this CPU, from gymnast's own rollouts. */
export function trainCommand(): Command {
  return new Command('train')
    .description(
      'GRPO on the embedded model, on the CPU: collect groups of rollouts of the small-products tasks, step on them (PPO-clip against the recorded logprobs), hand the sampler the new weights, repeat; writes metrics.jsonl, reward.svg and checkpoints/step-N/ to --output',
    )
    .requiredOption('--output <folder>', 'the run folder: metrics.jsonl (one line per step), reward.svg (reward against step), checkpoints/step-N/')
    .option('--steps <n>', 'collect → step loops (default 20)', flag(shape.steps))
    .option('--tasks-per-step <n>', 'training tasks collected per step (default 8)', flag(shape.tasksPerStep))
    .option('--group-size <n>', "rollouts per task: GRPO's group (default 8)", flag(shape.groupSize))
    .option('--learning-rate <x>', 'AdamW learning rate (default 3e-4)', flag(shape.learningRate))
    .option('--clip-epsilon <x>', "PPO's clip range ε (default 0.2)", flag(shape.clipEpsilon))
    .option('--kl-coefficient <x>', 'weight of the KL penalty to the starting weights (default 0: measured, not in the loss)', flag(shape.klCoefficient))
    .option('--minibatches <n>', 'optimizer steps per collected batch, each on its share of the groups (default 2)', flag(shape.minibatches))
    .option('--eval-every <n>', 'measure held-out accuracy every n steps, and before the first and after the last (default 5)', flag(shape.evalEvery))
    .option('--held-out <n>', 'held-out tasks measured, greedy and sampled (default all 198)', flag(shape.heldOut))
    .option(
      '--eval-samples <n>',
      'rollouts per held-out task sampled as in training, for the held-out pass@1 beside greedy accuracy; 0: greedy only (default 4)',
      flag(shape.evalSamples),
    )
    .option('--checkpoint-every <n>', 'save the weights every n steps, and after the last (default 10)', flag(shape.checkpointEvery))
    .option('--max-tokens <n>', 'tokens per generation (default 96)', flag(shape.maxTokens))
    .option('--seed <n>', 'seed of the task order and the sampling (default 1)', flag(shape.seed))
    .option('--overwrite', 'replace the metrics of an earlier run in --output')
    .addHelpText(
      'after',
      [
        '',
        'Rollouts are sampled at temperature 1 with no filters, where the logprobs the embedded model records',
        '(raw: before temperature and filters) are the sampling distribution: the first importance ratio of every',
        'step is 1 (to ~1e-6), and the metrics line says so (first_ratio_error).',
        'A checkpoint is a folder EmbeddedPolicy.load(folder) reads.',
      ].join('\n'),
    )
    .action(async (flags: TrainFlags) => {
      const metrics = join(flags.output, 'metrics.jsonl');
      if (!flags.overwrite && existsSync(metrics)) {
        throw new OutputExistsError(
          [{ path: metrics, rows: 0 }],
          `${metrics} exists: an earlier run's metrics; pass --overwrite to replace them, or another --output`,
        );
      }
      const { output, overwrite: _, ...settings } = flags;
      const created = await createPolicy({ kind: 'embedded' });
      if (!(created.policy instanceof EmbeddedPolicy)) throw new ConfigError('gymnast train needs the embedded model');
      const policy = created.policy;
      try {
        // Ctrl-C stops it where it is: what it wrote (metrics, plot, checkpoints) is whole up to the last step.
        const summary = await runGrpo({ policy, renderer: created.renderer, output, settings, onStep: (step) => process.stdout.write(stepLine(step)) });
        const sampled = summary.startPassAt1 === undefined ? '' : `, pass@1 ${percent(summary.startPassAt1)} → ${percent(summary.endPassAt1 ?? 0)}`;
        process.stdout.write(
          `held-out accuracy ${percent(summary.startAccuracy)} → ${percent(summary.endAccuracy)}${sampled} after ${summary.steps.length} steps\n` +
            `metrics in ${metrics}, plot in ${join(output, 'reward.svg')}, weights in ${summary.checkpoint}\n`,
        );
      } finally {
        await policy.close();
      }
    });
}

function stepLine(step: GrpoRunStep): string {
  const sampled = step.held_out_pass_at_1 === undefined ? '' : ` (pass@1 ${percent(step.held_out_pass_at_1)})`;
  const heldOut = step.held_out_accuracy === undefined ? '' : `, held-out ${percent(step.held_out_accuracy)}${sampled}`;
  return (
    `[train] step ${step.step}: reward ${step.reward.toFixed(3)}, pass@k ${step.pass_at_k.toFixed(3)}, KL ${step.kl.toExponential(2)}, ` +
    `clip ${step.clip_fraction.toFixed(3)}, entropy ${step.entropy.toFixed(3)}, ${Math.round(step.tokens_per_second)} tok/s, ` +
    `collect ${step.collect_seconds.toFixed(1)} s, step ${step.seconds.toFixed(1)} s${heldOut}\n`
  );
}

const percent = (value: number) => `${(100 * value).toFixed(1)}%`;

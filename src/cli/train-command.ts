import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { OutputExistsError } from '../core/errors/output-exists-error.js';
import { ConfigError } from '../core/errors/config-error.js';
import { createPolicy } from '../policy/create-policy.js';
import { EmbeddedPolicy } from '../policy/embedded/embedded-policy.js';
import { AsyncTraining } from '../train/async-training.js';
import { InFlight } from '../train/rollout-sampler.js';
import { GrpoRunSettings, type GrpoRunSettingsInput, type GrpoRunStep, runGrpo } from '../train/grpo-run.js';
import { numberFlag } from './flag-parsers.js';
import { openTensorBoard, parseTensorBoardFolder, tensorBoardHelp } from './tensorboard-flag.js';
import { trainScalars } from './train-scalars.js';

interface TrainFlags extends GrpoRunSettingsInput {
  output: string;
  overwrite?: boolean;
  tensorboard?: string;
  async?: boolean;
  maxStaleness?: number;
  inFlight?: InFlight;
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
    .option(
      '--tensorboard <dir>',
      tensorBoardHelp("each step's metrics (reward, pass@1, pass@k, KL, clip fraction, entropy, tokens/s, held-out accuracy when measured)"),
      parseTensorBoardFolder,
    )
    .option('--async', "collect in a sampler process while the trainer steps: a step's groups are collected while the steps before it train")
    .option(
      '--max-staleness <k>',
      "with --async: train only on groups every turn of which was sampled at most k weight versions before the trainer's (0: synchronous; default 1)",
      flag(AsyncTraining.shape.maxStaleness),
    )
    .addOption(
      new Option(
        '--in-flight <mode>',
        'with --async, rollouts in flight when new weights arrive: finish (their generations end on the old weights, later turns use the new ones; each turn records its policy_version) or rerun (their groups are cut and collected again on the new weights) (default finish)',
      ).choices(InFlight.options),
    )
    .addHelpText(
      'after',
      [
        '',
        'Rollouts are sampled at temperature 1 with no filters, where the logprobs the embedded model records',
        '(raw: before temperature and filters) are the sampling distribution: the first importance ratio of every',
        'step is 1 (to ~1e-6), and the metrics line says so (first_ratio_error). With --async a step also learns from',
        'turns sampled by older weights (their ratios move off 1, which the clip bounds); each line of metrics.jsonl',
        'gives the versions of the turns it trained on (versions, staleness), the groups dropped as too stale, and',
        'the seconds spent collecting (in the sampler process), waiting for the groups and training (seconds).',
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
      const { output, overwrite: _, tensorboard: tensorBoardFolder, async: asynchronous, maxStaleness, inFlight, ...settings } = flags;
      if (!asynchronous && (maxStaleness !== undefined || inFlight !== undefined)) throw new ConfigError('--max-staleness and --in-flight need --async');
      const async = asynchronous ? { ...(maxStaleness === undefined ? {} : { maxStaleness }), ...(inFlight === undefined ? {} : { inFlight }) } : undefined;
      const tensorBoard = tensorBoardFolder === undefined ? undefined : await openTensorBoard(tensorBoardFolder);
      const created = await createPolicy({ kind: 'embedded' }).catch(async (error: unknown) => {
        await tensorBoard?.close();
        throw error;
      });
      if (!(created.policy instanceof EmbeddedPolicy)) throw new ConfigError('gymnast train needs the embedded model');
      const policy = created.policy;
      try {
        const onStep = (step: GrpoRunStep) => {
          process.stdout.write(stepLine(step));
          tensorBoard?.write(step.step, trainScalars(step));
        };
        // Ctrl-C stops it where it is: what it wrote (metrics, plot, checkpoints, event file) is whole up to the last step.
        const summary = await runGrpo({ policy, renderer: created.renderer, output, settings, ...(async === undefined ? {} : { async }), onStep });
        const sampled = summary.startPassAt1 === undefined ? '' : `, pass@1 ${percent(summary.startPassAt1)} → ${percent(summary.endPassAt1 ?? 0)}`;
        process.stdout.write(
          `held-out accuracy ${percent(summary.startAccuracy)} → ${percent(summary.endAccuracy)}${sampled} after ${summary.steps.length} steps\n` +
            `metrics in ${metrics}, plot in ${join(output, 'reward.svg')}, weights in ${summary.checkpoint}\n`,
        );
        // A write that failed says so on a run that went well; after one that failed, its own error is what counts.
        await tensorBoard?.flush();
      } finally {
        await Promise.all([policy.close(), tensorBoard?.close().catch(() => undefined)]);
      }
    });
}

function stepLine(step: GrpoRunStep): string {
  const sampled = step.held_out_pass_at_1 === undefined ? '' : ` (pass@1 ${percent(step.held_out_pass_at_1)})`;
  const heldOut = step.held_out_accuracy === undefined ? '' : `, held-out ${percent(step.held_out_accuracy)}${sampled}`;
  return (
    `[train] step ${step.step}: reward ${step.reward.toFixed(3)}, pass@k ${step.pass_at_k.toFixed(3)}, KL ${step.kl.toExponential(2)}, ` +
    `clip ${step.clip_fraction.toFixed(3)}, entropy ${step.entropy.toFixed(3)}, ${Math.round(step.tokens_per_second)} tok/s, ` +
    `collect ${step.collect_seconds.toFixed(1)} s, wait ${step.wait_seconds.toFixed(1)} s, step ${step.seconds.toFixed(1)} s, ` +
    `turns by staleness ${stalenessText(step.staleness)}${step.groups_dropped > 0 ? `, ${step.groups_dropped} groups dropped` : ''}${heldOut}\n`
  );
}

const stalenessText = (staleness: Record<string, number>) =>
  Object.entries(staleness)
    .map(([versions, turns]) => `${versions}:${turns}`)
    .join(' ') || 'none';

const percent = (value: number) => `${(100 * value).toFixed(1)}%`;

import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { EpisodeTask } from '../core/episode-task.js';
import { ConfigError } from '../core/errors/config-error.js';
import { SamplingParams } from '../core/sampling-params.js';
import { runGroups } from '../engine/run-groups.js';
import type { EpisodeOptions } from '../engine/episode-options.js';
import { arithmeticPrompt, type ArithmeticTask } from '../environments/arithmetic.js';
import { smallProductTasks } from '../environments/small-product-tasks.js';
import type { EmbeddedPolicy } from '../policy/embedded/embedded-policy.js';
import type { ConversationRenderer } from '../tokens/conversation-renderer.js';
import { createSeededRandom } from '../util/seeded-random.js';
import { writeFileAtomic } from '../util/write-file-atomic.js';
import { AsyncTraining, type AsyncTrainingInput } from './async-training.js';
import { type BatchSource, inProcessBatches, type StepBatch } from './batch-source.js';
import { GrpoSettings, type GrpoStepMetrics, GrpoTrainer } from './grpo-trainer.js';
import type { StepCollection } from './sampler-messages.js';
import { startSamplerChild } from './sampler-child.js';
import { type FreshGroups, keepFresh } from './staleness.js';
import { trainingEpisode } from './training-episode.js';
import { type RewardPoint, rewardPlotSvg } from './reward-plot.js';
import { writeCheckpoint } from './write-checkpoint.js';

/** A training run: how many steps, how much each collects, how often it measures and saves. */
export const GrpoRunSettings = GrpoSettings.extend({
  steps: z.number().int().positive().default(20),
  /**
   * Two optimizer steps per collected batch, each on half its groups: twice the updates for the same
   * CPU. Over 40 steps on the small-products tasks, held-out pass@1 went 19.1% → 47.7% (greedy
   * 39.9% → 58.1%) with two, against 23.0% → 41.2% (greedy 39.9% → 54.5%) with one.
   */
  minibatches: z.number().int().positive().default(2),
  /** Training tasks per step; each gets `groupSize` rollouts. */
  tasksPerStep: z.number().int().positive().default(8),
  groupSize: z.number().int().min(2).default(8),
  /** Held-out accuracy is measured before the first step, every this many steps, and after the last. */
  evalEvery: z.number().int().positive().default(5),
  /** Held-out tasks measured (the first ones of the held-out split); all 198 by default. */
  heldOut: z.number().int().positive().default(198),
  /** Rollouts per held-out task sampled as in training (temperature 1) for the held-out pass@1, beside the greedy accuracy; 0 measures greedy only. */
  evalSamples: z.number().int().nonnegative().default(4),
  /** Weights are saved every this many steps, and after the last. */
  checkpointEvery: z.number().int().positive().default(10),
  maxTokens: z.number().int().positive().default(96),
  seed: z.number().int().default(1),
});
export type GrpoRunSettings = z.infer<typeof GrpoRunSettings>;
export type GrpoRunSettingsInput = z.input<typeof GrpoRunSettings>;

/**
 * A step's metrics as the run writes them: the trainer's, where the time went (`seconds` is the
 * step's own), the versions of the turns it learned from, and, when measured, the held-out accuracy.
 */
export interface GrpoRunStep extends GrpoStepMetrics {
  collect_seconds: number;
  /** Seconds the trainer waited for this step's groups (all of `collect_seconds` when synchronous). */
  wait_seconds: number;
  /** The trainer's weights the step started from: the steps taken before it. */
  policy_version: number;
  /** Turns trained on, by the `policy_version` that sampled them. */
  versions: Record<string, number>;
  /** Turns trained on, by staleness (`policy_version` minus the turn's): none above the run's bound. */
  staleness: Record<string, number>;
  /** Groups left out for a turn older than the bound (counted, never trained on). */
  groups_dropped: number;
  /** Groups cut by new weights mid-collection and collected again (`inFlight: 'rerun'`). */
  groups_rerun: number;
  /** Rollouts trained on whose turns more than one version sampled (`inFlight: 'finish'`). */
  rollouts_mixed_versions: number;
  /** Seconds the sampler process spent computing the rollouts' logprobs under the starting weights for the KL, off the trainer (asynchronous only). */
  reference_seconds?: number;
  /** CPU seconds the sampler process has used since it started, up to sending this step's groups (asynchronous only). */
  sampler_cpu_seconds?: number;
  /** How long the last weights took to reach the sampler process and to go in there (asynchronous only). */
  weights_transfer_seconds?: number;
  weights_apply_seconds?: number;
  /** Share of held-out tasks answered right greedily. */
  held_out_accuracy?: number;
  /** Share of held-out rollouts sampled at the training temperature that are right: the policy's expected accuracy. */
  held_out_pass_at_1?: number;
}

/** What one held-out measurement found. */
interface HeldOut {
  accuracy: number;
  passAt1?: number;
}

export interface GrpoRunOptions {
  policy: EmbeddedPolicy;
  renderer: ConversationRenderer;
  /** The run's folder: `metrics.jsonl`, `reward.svg`, `checkpoints/step-N/`. */
  output: string;
  settings?: GrpoRunSettingsInput;
  onStep?: (step: GrpoRunStep) => void;
  signal?: AbortSignal;
  /** Collects in a sampler process while the trainer steps, with bounded staleness; absent, each step collects and then trains. */
  async?: AsyncTrainingInput;
}

export interface GrpoRunSummary {
  steps: GrpoRunStep[];
  /** Held-out accuracy (greedy) before the first step. */
  startAccuracy: number;
  endAccuracy: number;
  /** Held-out pass@1 (sampled) before the first step and after the last, when `evalSamples` is not 0. */
  startPassAt1?: number;
  endPassAt1?: number;
  checkpoint: string;
}

/**
 * GRPO on the embedded model over the small-products tasks, collect → step, in one process: each step
 * runs `groupSize` rollouts of `tasksPerStep` training tasks through the engine at temperature 1
 * (where the recorded raw logprobs are the sampling distribution's), takes the groups as they finish,
 * steps the trainer on them, and hands the sampler the new weights before the next collection.
 * Held-out accuracy is the share of held-out tasks answered right with greedy decoding; held-out
 * pass@1 the share of `evalSamples` rollouts per held-out task, sampled as in training, that are right.
 */
export async function runGrpo(options: GrpoRunOptions): Promise<GrpoRunSummary> {
  const settings = GrpoRunSettings.parse(options.settings ?? {});
  const { policy, output } = options;
  await mkdir(output, { recursive: true });
  const metricsFile = join(output, 'metrics.jsonl');
  await writeFile(metricsFile, '');
  const trainer = new GrpoTrainer(policy.model, settings);
  const train = shuffled(smallProductTasks('train'), settings.seed);
  const heldOut = smallProductTasks('held-out').slice(0, settings.heldOut);
  const episode = (sampling: SamplingParams): EpisodeOptions => trainingEpisode(policy, options.renderer, sampling);
  const evaluate = async (): Promise<HeldOut> => {
    const accuracy = await heldOutAccuracy(heldOut, episode(SamplingParams.parse({ greedy: true, max_tokens: settings.maxTokens })), 1, options.signal);
    if (settings.evalSamples === 0) return { accuracy };
    // One seed for every measurement: the curve moves with the weights, not with the draws.
    const sampling = SamplingParams.parse({ temperature: 1, max_tokens: settings.maxTokens, seed: HELD_OUT_SEED + settings.seed });
    return { accuracy, passAt1: await heldOutAccuracy(heldOut, episode(sampling), settings.evalSamples, options.signal) };
  };

  const start = await evaluate();
  const points: RewardPoint[] = [{ step: 0, ...plotted(start) }];
  const steps: GrpoRunStep[] = [];
  let checkpoint = '';
  const schedule = Array.from({ length: settings.steps }, (_, s): StepCollection => {
    const tasks = Array.from({ length: settings.tasksPerStep }, (_, i) => train[(s * settings.tasksPerStep + i) % train.length]!);
    const sampling = SamplingParams.parse({ temperature: 1, max_tokens: settings.maxTokens, seed: settings.seed * 100_003 + s });
    return { step: s + 1, tasks: episodeTasks(tasks), sampling };
  });
  const asynchronous = options.async === undefined ? undefined : AsyncTraining.parse(options.async);
  const batches: BatchSource = asynchronous
    ? startSamplerChild({ model: policy.model, groupSize: settings.groupSize, klInLoss: settings.klCoefficient > 0, schedule, ...asynchronous })
    : inProcessBatches(episode, settings.groupSize, options.signal);
  try {
    for (const collection of schedule) {
      options.signal?.throwIfAborted();
      const batch = await batches.next(collection);
      const fresh = keepFresh(batch.groups, trainer.steps, asynchronous?.maxStaleness ?? 0);
      const version = trainer.steps;
      const metrics = trainer.step(fresh.groups);
      policy.updateWeights(trainer.model.params);
      batches.publish(trainer.model.params, trainer.steps);
      const last = collection.step === settings.steps;
      const measured = last || collection.step % settings.evalEvery === 0 ? await evaluate() : undefined;
      const step: GrpoRunStep = { ...metrics, ...batchMetrics(batch, fresh, version), ...(measured === undefined ? {} : stepHeldOut(measured)) };
      steps.push(step);
      points.push({ step: step.step, reward: step.reward, ...(measured === undefined ? {} : plotted(measured)) });
      await appendFile(metricsFile, `${JSON.stringify(step)}\n`);
      await writeFileAtomic(join(output, 'reward.svg'), rewardPlotSvg(points));
      if (last || step.step % settings.checkpointEvery === 0) {
        checkpoint = await writeCheckpoint(join(output, 'checkpoints', `step-${step.step}`), trainer.model, {
          name: 'gymnast-tiny-arith (GRPO)',
          grpo: { step: step.step, settings, held_out_accuracy: measured?.accuracy ?? null, held_out_pass_at_1: measured?.passAt1 ?? null },
        });
      }
      options.onStep?.(step);
    }
  } finally {
    await batches.close();
  }
  const end = steps.at(-1);
  return {
    steps,
    startAccuracy: start.accuracy,
    endAccuracy: end?.held_out_accuracy ?? start.accuracy,
    ...(start.passAt1 === undefined ? {} : { startPassAt1: start.passAt1, endPassAt1: end?.held_out_pass_at_1 ?? start.passAt1 }),
    checkpoint,
  };
}

/** Held-out measurements are sampled from this seed (plus the run's), apart from the training steps' seeds. */
const HELD_OUT_SEED = 7_000_003;

function stepHeldOut(measured: HeldOut): Pick<GrpoRunStep, 'held_out_accuracy' | 'held_out_pass_at_1'> {
  return { held_out_accuracy: measured.accuracy, ...(measured.passAt1 === undefined ? {} : { held_out_pass_at_1: measured.passAt1 }) };
}

function plotted(measured: HeldOut): Pick<RewardPoint, 'heldOut' | 'heldOutSampled'> {
  return { heldOut: measured.accuracy, ...(measured.passAt1 === undefined ? {} : { heldOutSampled: measured.passAt1 }) };
}

function batchMetrics(
  batch: StepBatch,
  fresh: FreshGroups,
  version: number,
): Omit<GrpoRunStep, keyof GrpoStepMetrics | 'held_out_accuracy' | 'held_out_pass_at_1'> {
  return {
    collect_seconds: batch.collectSeconds,
    wait_seconds: batch.waitSeconds,
    policy_version: version,
    versions: fresh.versions,
    staleness: fresh.staleness,
    groups_dropped: fresh.dropped,
    groups_rerun: batch.groupsRerun,
    rollouts_mixed_versions: fresh.mixedVersions,
    ...(batch.referenceSeconds === undefined ? {} : { reference_seconds: batch.referenceSeconds }),
    ...(batch.samplerCpuSeconds === undefined ? {} : { sampler_cpu_seconds: batch.samplerCpuSeconds }),
    ...(batch.weights === undefined ? {} : { weights_transfer_seconds: batch.weights.transferSeconds, weights_apply_seconds: batch.weights.applySeconds }),
  };
}

function signalOf(signal: AbortSignal | undefined): { signal?: AbortSignal } {
  return signal === undefined ? {} : { signal };
}

function episodeTasks(tasks: readonly ArithmeticTask[]): EpisodeTask[] {
  return tasks.map((task, index) => EpisodeTask.parse({ id: task.problem, index, messages: arithmeticPrompt(task), data: task }));
}

/** The share of `tasks`' rollouts (`samples` of each) that are rewarded. */
async function heldOutAccuracy(tasks: readonly ArithmeticTask[], options: EpisodeOptions, samples: number, signal: AbortSignal | undefined): Promise<number> {
  if (tasks.length === 0) throw new ConfigError('no held-out tasks to measure');
  let right = 0;
  for await (const group of runGroups(episodeTasks(tasks), options, { groupSize: samples, ...signalOf(signal) }))
    right += group.records.filter((record) => record.reward > 0).length;
  return right / (tasks.length * samples);
}

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const random = createSeededRandom(seed);
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = random.int(0, i);
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

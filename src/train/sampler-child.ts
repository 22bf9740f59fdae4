import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SamplerProcessError } from '../core/errors/sampler-process-error.js';
import type { GptModel } from '../policy/embedded/gpt-model.js';
import type { BatchSource, StepBatch } from './batch-source.js';
import type { InFlight } from './rollout-sampler.js';
import { epochMs, type FromSampler, type StepCollection, type ToSampler } from './sampler-messages.js';

/** The CLI, which runs the sampler as `gymnast train-sampler` from whatever build or sources this package runs from. */
const bin = fileURLToPath(new URL('../../bin/gymnast.js', import.meta.url));

export interface SamplerChildOptions {
  /** The weights it starts from (version 0). */
  model: GptModel;
  groupSize: number;
  maxStaleness: number;
  inFlight: InFlight;
  /** The trainer's KL penalty is in its loss: it reads every rollout, not only those with an advantage. */
  klInLoss: boolean;
  /** Every step's collection, in order: the sampler runs ahead of the trainer as far as the staleness bound lets it. */
  schedule: StepCollection[];
}

/**
 * Asynchronous collection in a child process (`runSamplerProcess`): it collects while the trainer
 * steps, so a step's groups are often waiting when the trainer asks. Weights go to it after every step
 * over IPC, without waiting for it to take them.
 */
export function startSamplerChild(options: SamplerChildOptions): BatchSource {
  const child: ChildProcess = fork(bin, ['train-sampler'], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const batches = new Map<number, { batch: FromSampler & { type: 'batch' }; arrived: number }>();
  let weights: StepBatch['weights'];
  let failure: SamplerProcessError | undefined;
  let wake: () => void = () => {};
  child.on('message', (message: FromSampler) => {
    if (message.type === 'batch') batches.set(message.step, { batch: message, arrived: performance.now() });
    else if (message.type === 'weights-applied')
      weights = { version: message.version, transferSeconds: message.transferSeconds, applySeconds: message.applySeconds };
    else failure = new SamplerProcessError(`the sampler process failed: ${message.message}`);
    wake();
  });
  child.on('exit', (code, signal) => {
    failure ??= new SamplerProcessError(`the sampler process exited (${signal ?? `code ${code}`}) before the run was over`);
    wake();
  });
  child.on('error', (error) => {
    failure ??= new SamplerProcessError(`the sampler process could not run: ${error.message}`, { cause: error });
    wake();
  });
  const post = (message: ToSampler) => child.send(message);
  const { model, schedule, ...settings } = options;
  post({ type: 'start', config: model.config, params: model.params, schedule, ...settings });
  let closed = false;
  return {
    async next(collection) {
      const asked = performance.now();
      while (!batches.has(collection.step)) {
        if (failure) throw failure;
        await new Promise<void>((resolve) => (wake = resolve));
      }
      const { batch, arrived } = batches.get(collection.step)!;
      batches.delete(collection.step);
      return {
        groups: batch.groups,
        collectSeconds: batch.seconds,
        waitSeconds: Math.max(0, arrived - asked) / 1000,
        groupsRerun: batch.groupsRerun,
        referenceSeconds: batch.referenceSeconds,
        samplerCpuSeconds: batch.cpuSeconds,
        ...(weights === undefined ? {} : { weights }),
      };
    },
    publish(params, version) {
      if (!closed && child.connected) post({ type: 'weights', version, params, sentAt: epochMs() });
    },
    async close() {
      closed = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      if (child.connected) {
        post({ type: 'stop' });
        child.disconnect();
      } else child.kill();
      await exited;
    },
  };
}

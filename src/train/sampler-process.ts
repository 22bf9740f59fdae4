import { createPolicy } from '../policy/create-policy.js';
import { EmbeddedPolicy } from '../policy/embedded/embedded-policy.js';
import { GptModel } from '../policy/embedded/gpt-model.js';
import { ConfigError } from '../core/errors/config-error.js';
import { referenceLogprobs } from './reference-logprobs.js';
import { RolloutSampler } from './rollout-sampler.js';
import { epochMs, type FromSampler, type ToSampler } from './sampler-messages.js';
import { mayStartCollecting } from './staleness.js';
import { trainingEpisode } from './training-episode.js';

/**
 * The sampling half of `gymnast train --async`, run in a child process (`gymnast train-sampler`, over
 * its IPC channel) so that it decodes on one core while the trainer steps on the other. It collects
 * every step's groups in order, starting a step's only once its weights are new enough for the
 * staleness bound (`mayStartCollecting`), and puts in each version of the weights the trainer sends
 * as it arrives, mid-collection or not (`RolloutSampler`'s in-flight setting).
 */
export async function runSamplerProcess(): Promise<void> {
  const send = (message: FromSampler) => process.send?.(message);
  if (process.send === undefined) throw new ConfigError('gymnast train-sampler runs as the child process of gymnast train --async');
  const messages: ToSampler[] = [];
  let arrived: () => void = () => {};
  process.on('message', (message: ToSampler) => {
    messages.push(message);
    arrived();
  });
  // The trainer gone, nothing is left to sample for.
  process.on('disconnect', () => process.exit(0));
  const next = async (): Promise<ToSampler> => {
    while (messages.length === 0) await new Promise<void>((resolve) => (arrived = resolve));
    return messages.shift()!;
  };
  try {
    const start = await next();
    if (start.type !== 'start') throw new ConfigError(`the sampler process expected its start message first, got ${start.type}`);
    const created = await createPolicy({ kind: 'embedded' });
    if (!(created.policy instanceof EmbeddedPolicy)) throw new ConfigError('the sampler process needs the embedded model');
    const policy = new EmbeddedPolicy(new GptModel(start.config, start.params), created.policy.tokenizer);
    const sampler = new RolloutSampler(policy, (sampling) => trainingEpisode(policy, created.renderer, sampling), start.inFlight);
    // The trainer's KL is to the weights both start from: computing those logprobs here takes a forward pass per rollout off the trainer.
    const reference = new GptModel(start.config, start.params.slice());
    const versionChanged = new Set<() => void>();
    // Weights go in one version after another, while the collection below goes on.
    const updates = (async () => {
      for (;;) {
        const message = await next();
        if (message.type === 'stop') process.exit(0);
        if (message.type !== 'weights') continue;
        const received = epochMs();
        await sampler.updateWeights(message.params);
        send({
          type: 'weights-applied',
          version: policy.version,
          transferSeconds: (received - message.sentAt) / 1000,
          applySeconds: (epochMs() - received) / 1000,
        });
        for (const wake of versionChanged) wake();
      }
    })();
    const collection = (async () => {
      for (const collect of start.schedule) {
        while (!mayStartCollecting(collect.step, policy.version, start.maxStaleness))
          await new Promise<void>((resolve) =>
            versionChanged.add(function wake() {
              versionChanged.delete(wake);
              resolve();
            }),
          );
        const batch = await sampler.collect(collect.tasks, collect.sampling, start.groupSize);
        const started = performance.now();
        const groups = [];
        for (const group of batch.groups) groups.push({ ...group, referenceLogprobs: await referenceLogprobs(reference, group, start.klInLoss) });
        const referenceSeconds = (performance.now() - started) / 1000;
        const cpu = process.cpuUsage();
        const cpuSeconds = (cpu.user + cpu.system) / 1e6;
        send({ type: 'batch', step: collect.step, groups, seconds: batch.seconds, referenceSeconds, groupsRerun: batch.groupsRerun, cpuSeconds });
      }
    })();
    await Promise.race([updates, collection]);
    await updates;
  } catch (error) {
    send({ type: 'error', message: error instanceof Error ? error.message : String(error) });
    process.exitCode = 1;
    process.disconnect?.();
  }
}

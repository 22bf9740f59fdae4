import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EpisodeTask, SamplingParams } from '../../src/core/index.js';
import type { EpisodeGroup } from '../../src/engine/index.js';
import { arithmeticPrompt, smallProductTasks } from '../../src/environments/index.js';
import { EmbeddedPolicy } from '../../src/policy/index.js';
import { JinjaChatTemplate, TemplateRenderer, type HfTokenizer } from '../../src/tokens/index.js';
import { type InFlight, RolloutSampler } from '../../src/train/rollout-sampler.js';
import { trainingEpisode } from '../../src/train/training-episode.js';

const tasks = smallProductTasks('train')
  .slice(0, 3)
  .map((task, index) => EpisodeTask.parse({ id: task.problem, index, messages: arithmeticPrompt(task), data: task }));
const sampling = SamplingParams.parse({ temperature: 1, max_tokens: 32, seed: 7 });

/** Collects 3 groups of 4 with a policy of its own, handing it new weights as the first turn of the collection ends. */
async function collectAcrossAnUpdate(inFlight: InFlight) {
  const policy = await EmbeddedPolicy.load();
  const tokenizer = policy.tokenizer as HfTokenizer;
  const renderer = new TemplateRenderer(tokenizer, JinjaChatTemplate.fromConfig(tokenizer.config), { drift: 'strict' });
  let update: Promise<void> | undefined;
  const sampler: RolloutSampler = new RolloutSampler(
    policy,
    (params) => ({
      ...trainingEpisode(policy, renderer, params),
      onEvent: (event) => {
        if (event.type === 'turn-end' && update === undefined) update = sampler.updateWeights(policy.model.params.map((w) => w * 0.999));
      },
    }),
    inFlight,
  );
  const batch = await sampler.collect(tasks, sampling, 4);
  await update;
  return { batch, version: policy.version };
}

/** Each rollout's turns' policy versions, in turn order. */
const turnVersions = (groups: readonly EpisodeGroup[]) =>
  groups.flatMap((group) => group.records.map((record) => record.turns.map((turn) => turn.policy_version)));

describe('rollouts in flight when new weights arrive', () => {
  it('finish: their generations end on the old weights, later turns use the new ones, and each turn records which', async () => {
    const { batch, version } = await collectAcrossAnUpdate('finish');
    assert.equal(version, 1);
    assert.equal(batch.groups.length, 3);
    assert.equal(batch.groupsRerun, 0);
    const rollouts = turnVersions(batch.groups);
    assert.equal(rollouts.length, 12);
    for (const versions of rollouts) assert.deepEqual(versions, [...versions].sort(), `versions go up within a rollout: ${versions}`);
    assert.ok(
      rollouts.some((versions) => versions.includes(0) && versions.includes(1)),
      `a rollout started on version 0 and went on with version 1: ${JSON.stringify(rollouts)}`,
    );
  });

  it('rerun: the groups in flight are cut and collected again, so every turn kept is sampled by the new weights', async () => {
    const { batch, version } = await collectAcrossAnUpdate('rerun');
    assert.equal(version, 1);
    assert.equal(batch.groups.length, 3);
    assert.equal(batch.groupsRerun, 3, 'no group had ended at the first turn: all were cut');
    const rollouts = turnVersions(batch.groups);
    assert.equal(rollouts.length, 12);
    for (const versions of rollouts) {
      assert.ok(versions.length > 0);
      assert.deepEqual(new Set(versions), new Set([1]), `no turn predates the update: ${versions}`);
    }
    for (const record of batch.groups.flatMap((group) => group.records)) assert.equal(record.record_type, 'rollout');
  });
});

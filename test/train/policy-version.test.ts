import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EpisodeTask, RolloutRecord, SamplingParams } from '../../src/core/index.js';
import { type EpisodeGroup, runGroups } from '../../src/engine/index.js';
import { arithmeticEnvironment, arithmeticPrompt, smallProductTasks } from '../../src/environments/index.js';
import { EmbeddedPolicy } from '../../src/policy/index.js';
import { JinjaChatTemplate, TemplateRenderer, type HfTokenizer } from '../../src/tokens/index.js';

// Its own policy: its weights are updated, which the other spec files' shared one must not see.
const policy = await EmbeddedPolicy.load();
const tokenizer = policy.tokenizer as HfTokenizer;
const renderer = new TemplateRenderer(tokenizer, JinjaChatTemplate.fromConfig(tokenizer.config), { drift: 'strict' });
const tasks = smallProductTasks('train')
  .slice(0, 2)
  .map((task, index) => EpisodeTask.parse({ id: task.problem, index, messages: arithmeticPrompt(task), data: task }));

async function collect(seed: number): Promise<EpisodeGroup[]> {
  const options = {
    policy,
    environment: arithmeticEnvironment(),
    renderer,
    maxTurns: 2,
    maxSeqLen: policy.maxModelLen,
    sampling: SamplingParams.parse({ temperature: 1, max_tokens: 24, seed }),
  };
  const groups: EpisodeGroup[] = [];
  for await (const group of runGroups(tasks, options, { groupSize: 2 })) groups.push(group);
  return groups;
}

function versions(groups: readonly EpisodeGroup[]): Set<unknown> {
  return new Set(groups.flatMap((group) => group.records.flatMap((record) => record.turns.map((turn) => turn.policy_version))));
}

describe('the policy version on every turn', () => {
  it('records the weights that sampled each turn: 0 before an update, 1 after, and the record schema keeps it', async () => {
    assert.equal(policy.version, 0);
    const before = await collect(1);
    policy.updateWeights(policy.model.params.slice());
    assert.equal(policy.version, 1);
    const after = await collect(2);
    assert.deepEqual(versions(before), new Set([0]));
    assert.deepEqual(versions(after), new Set([1]));
    const record = after[0]!.records[0]!;
    assert.equal(RolloutRecord.parse(record).turns[0]!.policy_version, 1);
  });
});

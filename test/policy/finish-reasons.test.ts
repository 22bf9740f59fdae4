import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { runEpisode } from '../../src/engine/index.js';
import { createPolicy, policyKinds, type Policy, type PolicyKind } from '../../src/policy/index.js';
import { mapOpenAiFinishReason } from '../../src/policy/map-finish-reason.js';
import { ScriptedEnvironment, type InferenceServer } from '../../src/testing/index.js';
import { addTask, startServers, toolEpisodeOptions } from '../support/loopback-model.js';
import { qwen3Directory } from '../support/qwen3.js';

const started: InferenceServer[] = [];
const policies: Policy[] = [];
after(async () => {
  await Promise.all(policies.map((policy) => policy.close()));
  await Promise.all(started.map((server) => server.close()));
});

/** Scores every turn 0.5 and would go on forever: only the finish reason can end the episode. */
const endless = () => new ScriptedEnvironment({ step: () => ({ observation: [{ role: 'user', content: 'go on' }], reward: 0.5, terminated: false }) });

async function served(kind: Exclude<PolicyKind, 'embedded'>) {
  const [server] = await startServers(1, { flavor: kind.startsWith('sglang') ? 'sglang' : 'vllm' });
  started.push(server!);
  const { policy, renderer } = await createPolicy({ kind, baseUrls: [server!.url], tokenizerDir: qwen3Directory });
  policies.push(policy);
  return { server: server!, options: { ...(await toolEpisodeOptions(policy)), environment: endless(), renderer } };
}

describe('finish reasons', () => {
  it("maps the servers' reasons to ours, keeping the raw one: unknown ones are other, none at all an error", () => {
    const cases: [string | null, string][] = [
      ['stop', 'stop'],
      ['tool_calls', 'stop'],
      ['eos', 'stop'],
      ['length', 'length'],
      ['abort', 'abort'],
      ['error', 'error'],
      ['content_filter', 'other'],
      ['something_new', 'other'],
      [null, 'error'],
    ];
    for (const [raw, unified] of cases) assert.deepEqual(mapOpenAiFinishReason(raw), { unified, raw: raw ?? 'null' });
  });

  for (const kind of policyKinds.filter((name) => name !== 'embedded')) {
    it(`${kind}: content_filter ends the episode as finish-other after the environment scores the turn`, async () => {
      const { server, options } = await served(kind);
      server.faults.inject({ kind: 'finish-reason', reason: 'content_filter' });
      const record = await runEpisode(addTask(0), 0, options);
      assert.equal(record.record_type, 'rollout', JSON.stringify(record.termination));
      assert.equal(record.termination.kind, 'finish-other');
      assert.match(record.termination.detail ?? '', /content_filter/);
      assert.equal(record.reward, 0.5);
      assert.equal(record.turns.length, 1);
      assert.deepEqual(record.turns[0]!.finish_reason, { unified: 'other', raw: 'content_filter' });
    });
  }

  it('a server that says the generation failed (error) fails the episode as a policy error', async () => {
    const { server, options } = await served('vllm-completions');
    server.faults.inject({ kind: 'finish-reason', reason: 'error' });
    const record = await runEpisode(addTask(0), 0, options);
    assert.equal(record.record_type === 'failure' && record.failure_class, 'policy-error');
    assert.match(record.termination.detail ?? '', /finished with an error \(error\)/);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { flatTokenIds, type EpisodeRecord, type RolloutRecord } from '../../src/core/index.js';
import { runEpisode, type EngineEvent } from '../../src/engine/index.js';
import { ScriptedEnvironment, ScriptedPolicy } from '../../src/testing/index.js';
import { episodeOptions, task, tokenizer } from '../support/plain-episode.js';

function asRollout(record: EpisodeRecord): RolloutRecord {
  assert.equal(record.record_type, 'rollout', `expected a rollout, got ${JSON.stringify(record)}`);
  return record as RolloutRecord;
}

describe('the episode loop', () => {
  it('keeps sampled token ids and logprobs exactly as the policy returned them', async () => {
    const policy = new ScriptedPolicy({ tokenizer, script: [{ token_ids: [20, 21, 22], logprobs: [-0.1, -0.2, -0.3] }] });
    const environment = new ScriptedEnvironment({ step: () => ({ observation: [{ role: 'environment', content: 'ok' }], reward: 1, terminated: true }) });
    const record = asRollout(await runEpisode(task(0), 0, episodeOptions(policy, environment)));

    const assistant = record.messages.find((message) => message.role === 'assistant');
    assert.deepEqual(assistant?.token_ids, [20, 21, 22]);
    assert.deepEqual(assistant?.generation_logprobs, [-0.1, -0.2, -0.3]);
    assert.equal(assistant?.content, tokenizer.decode([20, 21, 22]));
  });

  it('times turns and the episode in milliseconds to the microsecond, never below zero', async () => {
    let now = 1_000.123_456_7;
    // A clock whose differences carry a float's noise, as performance.now()'s do.
    const clock = { now: () => (now += 21.498_392_000_000_08) };
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'a' }, { text: 'b' }] });
    const environment = new ScriptedEnvironment({
      step: (_turn, index) => ({ observation: [{ role: 'environment', content: 'go on' }], reward: 0, terminated: index === 1 }),
    });
    const record = asRollout(await runEpisode(task(0), 0, episodeOptions(policy, environment, { clock })));
    const timings = [record.timing.duration_ms, ...record.turns.flatMap((turn) => [turn.timing.generation_ms, turn.timing.env_ms])];
    assert.equal(timings.length, 5);
    for (const ms of timings) assert.match(String(ms), /^\d+(\.\d{1,3})?$/, `${ms}`);
    assert.equal(record.turns[0]!.timing.generation_ms, 21.498);
  });

  it('prompts each turn with the exact sequence so far: earlier tokens never change', async () => {
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'first' }, { text: 'second' }, { text: 'third' }] });
    const environment = new ScriptedEnvironment({
      step: (_turn, index) => ({ observation: [{ role: 'environment', content: `obs ${index}` }], reward: 0, terminated: index === 2 }),
    });
    const record = asRollout(await runEpisode(task(0), 0, episodeOptions(policy, environment)));

    assert.equal(policy.requests.length, 3);
    for (let i = 1; i < policy.requests.length; i++) {
      const earlier = policy.requests[i - 1]!.prompt_token_ids;
      assert.deepEqual(policy.requests[i]!.prompt_token_ids.slice(0, earlier.length), earlier);
    }
    assert.equal(tokenizer.decode(policy.requests[1]!.prompt_token_ids), 'user: task 0\nassistant: first\nenvironment: obs 0\nassistant: ');
    assert.equal(
      tokenizer.decode(flatTokenIds(record)),
      'user: task 0\nassistant: first\nenvironment: obs 0\nassistant: second\nenvironment: obs 1\nassistant: third\nenvironment: obs 2\n',
    );
  });

  it('appends the observation of the last turn, without a generation prompt', async () => {
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: '42' }] });
    const environment = new ScriptedEnvironment({
      step: () => ({ observation: [{ role: 'environment', content: 'Environment: correct' }], reward: 1, terminated: true }),
    });
    const record = asRollout(await runEpisode(task(0), 0, episodeOptions(policy, environment)));

    const last = record.messages.at(-1)!;
    assert.equal(last.content, 'Environment: correct');
    assert.equal(tokenizer.decode(last.token_ids!), '\nenvironment: Environment: correct\n');
    assert.deepEqual(record.termination, { kind: 'env-done' });
    assert.equal(record.reward, 1);
  });

  it('adds the observation of reset to the prompt before the first turn', async () => {
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'up' }] });
    const environment = new ScriptedEnvironment({
      reset: () => ({ metadata: { board: 1 }, observation: [{ role: 'user', content: 'board 1' }] }),
      step: () => ({ reward: 0, terminated: true }),
    });
    await runEpisode(task(0), 0, episodeOptions(policy, environment));
    assert.equal(tokenizer.decode(policy.requests[0]!.prompt_token_ids), 'user: task 0\nuser: board 1\nassistant: ');
  });

  it('carries stop strings: task first, then what each step returns; absent keeps, null clears', async () => {
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'a' }] });
    const nextStops = [['</action>'], undefined, null, ['</code>']];
    const environment = new ScriptedEnvironment({
      step: (_turn, index) => ({
        observation: [{ role: 'environment', content: 'go on' }],
        reward: 0,
        terminated: index === 4,
        ...(nextStops[index] === undefined ? {} : { next_stop_strings: nextStops[index] }),
      }),
    });
    await runEpisode(task(0, { stop_strings: ['<stop>'] }), 0, episodeOptions(policy, environment));
    assert.deepEqual(
      policy.requests.map((request) => request.stop_strings),
      [['<stop>'], ['</action>'], ['</action>'], [], ['</code>']],
    );
  });

  // NeMo RL's rollouts.py (seeds 000, 001): run_multi_turn_rollout updates extra_env_info for the
  // continuing samples only, run_sample_multi_turn_rollout only `if not terminated and not truncated`.
  it("carries metadata as NeMo RL's extra_env_info: the environment sees its last state, null keeps it; the record keeps the state before the terminal step, and that step's metadata apart", async () => {
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'a' }] });
    const environment = new ScriptedEnvironment<{ moves: number }>({
      reset: () => ({ metadata: { moves: 0 } }),
      step: ({ metadata }, index) => ({
        observation: [{ role: 'environment', content: 'next' }],
        reward: 0,
        terminated: index === 3,
        metadata: index === 1 ? null : { moves: metadata.moves + 1 },
      }),
    });
    const record = asRollout(await runEpisode(task(0), 0, episodeOptions(policy, environment)));
    assert.deepEqual(
      environment.turns.map((turn) => turn.metadata),
      [{ moves: 0 }, { moves: 1 }, { moves: 1 }, { moves: 2 }],
    );
    assert.deepEqual(record.env_metadata, { moves: 2 });
    assert.deepEqual(record.terminal_env_metadata, { moves: 3 });
  });

  it('keeps the metadata of a step the turn limit ends, as NeMo RL does for a sample still active after its last turn', async () => {
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'a' }] });
    const environment = new ScriptedEnvironment<{ moves: number }>({
      reset: () => ({ metadata: { moves: 0 } }),
      step: ({ metadata }) => ({
        observation: [{ role: 'environment', content: 'next' }],
        reward: 0,
        terminated: false,
        metadata: { moves: metadata.moves + 1 },
      }),
    });
    const record = asRollout(await runEpisode(task(0), 0, episodeOptions(policy, environment, { maxTurns: 2 })));
    assert.equal(record.termination.kind, 'max-turns');
    assert.deepEqual(record.env_metadata, { moves: 2 });
    assert.equal(record.terminal_env_metadata, undefined);
  });

  it('drops the metadata of a step whose observation fills max_seq_len from the carried state, as NeMo RL truncates the sample', async () => {
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'a' }] });
    const environment = new ScriptedEnvironment<{ moves: number }>({
      reset: () => ({ metadata: { moves: 0 } }),
      step: ({ metadata }) => ({
        observation: [{ role: 'environment', content: 'x'.repeat(400) }],
        reward: 0,
        terminated: false,
        metadata: { moves: metadata.moves + 1 },
      }),
    });
    const record = asRollout(await runEpisode(task(0), 0, episodeOptions(policy, environment, { maxSeqLen: 100 })));
    assert.equal(record.termination.kind, 'max-seq-len');
    assert.deepEqual(record.env_metadata, { moves: 0 });
    assert.deepEqual(record.terminal_env_metadata, { moves: 1 });
  });

  it("hands the environment every message's text fields, never its token fields", async () => {
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'a' }, { text: 'b' }] });
    const environment = new ScriptedEnvironment({
      step: (_turn, index) =>
        index === 0
          ? { observation: [{ role: 'tool', content: '42', tool_call_id: 'call_1' }], reward: 0, terminated: false }
          : { reward: 0, terminated: true },
    });
    await runEpisode(task(0), 0, episodeOptions(policy, environment));
    const opening = [{ role: 'user', content: 'task 0' }];
    assert.deepEqual(environment.turns[1]!.messages, [
      ...opening,
      { role: 'assistant', content: 'a' },
      { role: 'tool', content: '42', tool_call_id: 'call_1' },
      { role: 'assistant', content: 'b' },
    ]);
  });

  it('sums rewards and named reward components over turns', async () => {
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'a' }] });
    const environment = new ScriptedEnvironment({
      step: (_turn, index) => ({
        observation: [{ role: 'environment', content: 'x' }],
        reward: 0.75,
        reward_components: { correctness: 0.5, format: 0.25 },
        terminated: index === 1,
      }),
    });
    const record = asRollout(await runEpisode(task(0), 0, episodeOptions(policy, environment)));
    assert.equal(record.reward, 1.5);
    assert.deepEqual(record.reward_components, { correctness: 1, format: 0.5 });
  });

  it('derives a distinct reproducible seed per rollout and turn from the base seed', async () => {
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'a' }] });
    const environment = new ScriptedEnvironment({
      step: (_turn, index) => ({ observation: [{ role: 'environment', content: 'x' }], reward: 0, terminated: index === 1 }),
    });
    const options = episodeOptions(policy, environment);
    await runEpisode(task(0), 0, options);
    await runEpisode(task(0), 1, options);
    await runEpisode(task(0), 0, options);
    const seeds = policy.requests.map((request) => request.sampling.seed);
    assert.equal(new Set(seeds.slice(0, 4)).size, 4);
    assert.deepEqual(seeds.slice(4), seeds.slice(0, 2));
  });

  it('emits typed events in order, and the episode-end event carries the record', async () => {
    const events: EngineEvent[] = [];
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'a' }] });
    const environment = new ScriptedEnvironment({
      step: (_turn, index) => ({ observation: [{ role: 'environment', content: 'x' }], reward: 0, terminated: index === 1 }),
    });
    const record = await runEpisode(task(0), 0, episodeOptions(policy, environment, { onEvent: (event) => events.push(event) }));
    assert.deepEqual(
      events.map((event) => event.type),
      ['episode-start', 'turn-start', 'turn-end', 'turn-start', 'turn-end', 'episode-end'],
    );
    const end = events.at(-1);
    assert.equal(end?.type === 'episode-end' && end.record, record);
  });
});

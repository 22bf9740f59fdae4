import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { flatTokenIds, type EpisodeRecord, type EpisodeTask } from '../../src/core/index.js';
import { runGroups, type EpisodeOptions, type Schedule } from '../../src/engine/index.js';
import { ScriptedEnvironment, ScriptedPolicy } from '../../src/testing/index.js';
import { episodeOptions, task, tokenizer } from '../support/plain-episode.js';

const schedules: Schedule[] = [
  { kind: 'async', concurrency: 4 },
  { kind: 'lockstep', concurrency: 4 },
];

async function runOne(schedule: Schedule, options: EpisodeOptions, episodeTask: EpisodeTask = task(0)): Promise<EpisodeRecord> {
  for await (const group of runGroups([episodeTask], options, { groupSize: 1, schedule })) return group.records[0]!;
  throw new Error('no group');
}

const chatty = (content: string) =>
  new ScriptedEnvironment({ step: () => ({ observation: [{ role: 'environment', content }], reward: 0, terminated: false }) });

for (const schedule of schedules) {
  describe(`limits (${schedule.kind} schedule)`, () => {
    it('cuts an overflowing observation so the sequence holds exactly max_seq_len tokens', async () => {
      const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'short answer' }] });
      const record = await runOne(schedule, episodeOptions(policy, chatty('x'.repeat(500)), { maxSeqLen: 120 }));
      assert.equal(record.record_type, 'rollout');
      assert.equal(flatTokenIds(record).length, 120);
      assert.equal(record.termination.kind, 'max-seq-len');
      assert.equal(record.turns.at(-1)!.observation_truncated, true);
    });

    it('lowers max_tokens to the room left, and ends as max-seq-len when a generation fills it', async () => {
      const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'y'.repeat(100) }] });
      const record = await runOne(schedule, episodeOptions(policy, chatty('ok'), { maxSeqLen: 40 }));
      const promptLength = policy.requests[0]!.prompt_token_ids.length;
      assert.equal(policy.requests[0]!.sampling.max_tokens, 40 - promptLength);
      assert.equal(flatTokenIds(record).length, 40);
      assert.equal(record.termination.kind, 'max-seq-len');
    });

    // NeMo RL's rollouts.py (seeds 000, 001), run_multi_turn_rollout and run_sample_multi_turn_rollout: the
    // check `len(tokenized_obs) + len(generated) + input_length >= max_seq_len` runs on every turn, the
    // environment's last included, and marks the sample truncated whatever `terminateds` said.
    it("marks the turn whose observation brings the sequence to max_seq_len, on a turn the environment ends too (NeMo RL's truncation check)", async () => {
      const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'short answer' }] });
      const ending = new ScriptedEnvironment({
        step: () => ({ observation: [{ role: 'environment', content: 'x'.repeat(500) }], reward: 1, terminated: true }),
      });
      const record = await runOne(schedule, episodeOptions(policy, ending, { maxSeqLen: 120 }));
      assert.deepEqual(record.termination, { kind: 'env-done' });
      assert.equal(flatTokenIds(record).length, 120);
      assert.equal(record.turns[0]!.observation_truncated, true);
      assert.equal(record.turns[0]!.max_seq_len_reached, true);
    });

    it('marks a sequence filled exactly by the last allowed turn, though nothing was cut', async () => {
      const probe = await runOne(schedule, episodeOptions(new ScriptedPolicy({ tokenizer, script: [{ text: 'abc' }] }), chatty('0123456789'), { maxTurns: 1 }));
      const length = flatTokenIds(probe).length;
      assert.equal(probe.turns[0]!.max_seq_len_reached, undefined, 'not marked with room to spare');
      const exact = await runOne(
        schedule,
        episodeOptions(new ScriptedPolicy({ tokenizer, script: [{ text: 'abc' }] }), chatty('0123456789'), { maxTurns: 1, maxSeqLen: length }),
      );
      assert.equal(flatTokenIds(exact).length, length);
      assert.equal(exact.turns[0]!.observation_truncated, false);
      assert.equal(exact.turns[0]!.max_seq_len_reached, true);
      assert.equal(exact.termination.kind, 'max-turns');
    });

    it('ends with zero turns, as prompt-too-long, when the prompt alone fills max_seq_len', async () => {
      const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'a' }] });
      const record = await runOne(schedule, episodeOptions(policy, chatty('ok'), { maxSeqLen: 5 }));
      assert.equal(record.turns.length, 0);
      assert.equal(policy.requests.length, 0);
      assert.equal(flatTokenIds(record).length, 5);
      assert.equal(record.termination.kind, 'prompt-too-long');
    });

    it('reports max-turns only for an episode still active after its last allowed turn', async () => {
      const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'a' }] });
      const stillGoing = await runOne(schedule, episodeOptions(policy, chatty('more'), { maxTurns: 3 }));
      assert.equal(stillGoing.turns.length, 3);
      assert.equal(stillGoing.termination.kind, 'max-turns');

      const endsOnLastTurn = new ScriptedEnvironment({
        step: (_turn, index) => ({ observation: [{ role: 'environment', content: 'x' }], reward: 1, terminated: index === 2 }),
      });
      const natural = await runOne(schedule, episodeOptions(policy, endsOnLastTurn, { maxTurns: 3 }));
      assert.equal(natural.turns.length, 3);
      assert.equal(natural.termination.kind, 'env-done');
    });

    // NeMo RL's rollouts.py, both versions (seeds 000 and 001): run_multi_turn_rollout and
    // run_sample_multi_turn_rollout hand every generation to calculate_rewards, never asking why it stopped;
    // only `terminateds` and the max_seq_len check end a sample.
    it("by default follows NeMo RL's run_multi_turn_rollout and run_sample_multi_turn_rollout: a generation cut by max_tokens is scored and the episode goes on until the environment ends it", async () => {
      const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'z'.repeat(80) }] });
      const environment = new ScriptedEnvironment({
        step: (_turn, index) => ({ observation: [{ role: 'environment', content: 'x' }], reward: 0.5, terminated: index === 2 }),
      });
      const record = await runOne(schedule, episodeOptions(policy, environment));
      assert.equal(record.turns.length, 3);
      assert.deepEqual(
        record.turns.map((turn) => [turn.finish_reason.unified, turn.generation_cut]),
        [
          ['length', 'max-tokens'],
          ['length', 'max-tokens'],
          ['length', 'max-tokens'],
        ],
      );
      assert.deepEqual(
        environment.turns.map((turn) => turn.final),
        [false, false, false],
        'no turn is announced as the last',
      );
      assert.equal(record.reward, 1.5);
      assert.deepEqual(record.termination, { kind: 'env-done' });
    });

    it("with onMaxTokens 'end' (gymnast's option), scores a cut generation as the last turn, then ends the episode as max-tokens", async () => {
      const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'z'.repeat(80) }] });
      const environment = new ScriptedEnvironment({ step: () => ({ observation: [{ role: 'environment', content: 'x' }], reward: 0.5, terminated: false }) });
      const record = await runOne(schedule, episodeOptions(policy, environment, { onMaxTokens: 'end' }));
      assert.equal(record.turns.length, 1);
      assert.equal(record.turns[0]!.generation_cut, 'max-tokens');
      assert.equal(environment.turns[0]!.final, true);
      assert.equal(record.reward, 0.5);
      assert.equal(record.termination.kind, 'max-tokens');
    });

    it('records no cut on a generation that ended by itself, and a max-seq-len cut on one that filled the sequence', async () => {
      const whole = await runOne(schedule, episodeOptions(new ScriptedPolicy({ tokenizer, script: [{ text: 'a' }] }), chatty('x'), { maxTurns: 1 }));
      assert.equal(whole.turns[0]!.generation_cut, undefined);
      const filled = await runOne(
        schedule,
        episodeOptions(new ScriptedPolicy({ tokenizer, script: [{ text: 'y'.repeat(100) }] }), chatty('ok'), { maxSeqLen: 40 }),
      );
      assert.equal(filled.turns[0]!.generation_cut, 'max-seq-len');
    });

    it('scores a generation the server stopped for a reason gymnast does not know, then ends as finish-other', async () => {
      const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'cut short', finish_reason: 'other', raw_finish_reason: 'content_filter' }] });
      const environment = new ScriptedEnvironment({ step: () => ({ observation: [{ role: 'environment', content: 'x' }], reward: 0.25, terminated: false }) });
      const record = await runOne(schedule, episodeOptions(policy, environment));
      assert.equal(record.record_type, 'rollout');
      assert.equal(record.turns.length, 1);
      assert.equal(environment.turns.length, 1);
      assert.equal(record.reward, 0.25);
      assert.deepEqual(record.termination, { kind: 'finish-other', detail: 'the server ended the generation with finish reason "content_filter"' });
    });

    it("lets the environment's own end win over a finish reason gymnast does not know", async () => {
      const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'cut short', finish_reason: 'other', raw_finish_reason: 'content_filter' }] });
      const record = await runOne(
        schedule,
        episodeOptions(policy, new ScriptedEnvironment({ step: () => ({ observation: [], reward: 1, terminated: true }) })),
      );
      assert.deepEqual(record.termination, { kind: 'env-done' });
    });

    it('ends when the environment truncates the episode, as env-done with that detail', async () => {
      const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'a' }] });
      const environment = new ScriptedEnvironment({
        step: () => ({ observation: [{ role: 'environment', content: 'out of moves' }], reward: 0, terminated: false, truncated: true }),
      });
      const record = await runOne(schedule, episodeOptions(policy, environment));
      assert.deepEqual(record.termination, { kind: 'env-done', detail: 'the environment truncated the episode' });
    });
  });
}

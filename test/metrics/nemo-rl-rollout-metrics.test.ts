import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RolloutRecord } from '../../src/core/index.js';
import { runEpisode } from '../../src/engine/index.js';
import { rolloutMetrics } from '../../src/metrics/index.js';
import { ScriptedEnvironment, ScriptedPolicy } from '../../src/testing/index.js';
import { episodeOptions, task, tokenizer } from '../support/plain-episode.js';

/** An episode by hand: tokens generated and observed per turn (one character is one token), and the turn the environment ends it on. */
interface Episode {
  generated: number[];
  observed: number[];
  terminatesAt?: number;
}

const MAX_TURNS = 3;
/** Room for 40 tokens after the prompt. */
const ROOM = 40;

const episodes: Record<string, Episode> = {
  'ends by itself': { generated: [5], observed: [3], terminatesAt: 0 },
  'its last observation overflows on the turn the environment ends it': { generated: [5], observed: [100], terminatesAt: 0 },
  'an observation overflows on a turn that goes on': { generated: [5, 5], observed: [3, 100] },
  'still going after its last turn': { generated: [2, 2, 2], observed: [2, 2, 2] },
  'its observation overflows on its last allowed turn': { generated: [5, 5, 5], observed: [3, 3, 100] },
  'a generation fills the sequence on the turn the environment ends it': { generated: [3, 100], observed: [3, 0], terminatesAt: 1 },
};

const rewardOf = (episode: Episode, turn: number) => (turn === episode.terminatesAt ? 1 : 0.25);

/** Runs the episode with gymnast's loop, the environment's observations raw (tokenized as NeMo RL does). */
async function run(episode: Episode, index: number, maxSeqLen: number): Promise<RolloutRecord> {
  const policy = new ScriptedPolicy({ tokenizer, script: episode.generated.map((length) => ({ text: 'a'.repeat(length) })) });
  const environment = new ScriptedEnvironment({
    observationTokens: 'raw',
    step: (_turn, turn) => ({
      observation: [{ role: 'environment', content: 'o'.repeat(episode.observed[turn]!) }],
      reward: rewardOf(episode, turn),
      terminated: turn === episode.terminatesAt,
    }),
  });
  return (await runEpisode(task(index), 0, episodeOptions(policy, environment, { maxTurns: MAX_TURNS, maxSeqLen }))) as RolloutRecord;
}

/**
 * One sample as NeMo RL's `run_sample_multi_turn_rollout` counts it (rollouts.py, seed 000): per turn
 * the generation, then the observation, cut when `input_lengths + gen_token_count + len(tokenized_obs)
 * >= max_seq_len`, which marks the sample truncated; `terminated` is the environment's. `stillActive` is
 * `run_multi_turn_rollout`'s max-turns mark: not done (terminated or truncated) when the turns ran out.
 */
function seedSample(episode: Episode, promptLength: number, maxSeqLen: number) {
  let inputLength = promptLength;
  const sample = { turnCount: 0, totalTokens: 0, assistantTokens: 0, envTokens: 0, terminated: false, truncated: false, totalReward: 0 };
  for (let turn = 0; turn < MAX_TURNS; turn++) {
    if (sample.terminated || sample.truncated) break;
    sample.turnCount += 1;
    const generated = Math.min(episode.generated[turn]!, maxSeqLen - inputLength);
    sample.assistantTokens += generated;
    sample.totalTokens += generated;
    sample.totalReward += rewardOf(episode, turn);
    sample.terminated = turn === episode.terminatesAt;
    let observed = episode.observed[turn]!;
    if (inputLength + generated + observed >= maxSeqLen) {
      observed = Math.max(0, maxSeqLen - inputLength - generated);
      sample.truncated = true;
    }
    sample.envTokens += observed;
    sample.totalTokens += observed;
    inputLength += generated + observed;
  }
  return { ...sample, stillActive: !sample.terminated && !sample.truncated };
}

const mean = (values: number[]) => values.reduce((total, value) => total + value, 0) / values.length;

describe("rollout metrics with NeMo RL's names mean what NeMo RL's loops compute (rollouts.py)", async () => {
  const promptLength = (await run({ generated: [1], observed: [1], terminatesAt: 0 }, 0, 10_000)).turns[0]!.prompt_tokens;
  const maxSeqLen = promptLength + ROOM;
  const records = await Promise.all(Object.values(episodes).map((episode, i) => run(episode, i, maxSeqLen)));
  const samples = Object.values(episodes).map((episode) => seedSample(episode, promptLength, maxSeqLen));
  const metrics = rolloutMetrics(records);

  it('the hand-built episodes run as described: their turns and tokens are what NeMo RL would count', () => {
    assert.deepEqual(
      records.map((record) => [
        record.turns.length,
        record.turns.reduce((total, turn) => total + turn.generated_tokens, 0),
        record.turns.reduce((total, turn) => total + turn.env_tokens, 0),
      ]),
      samples.map((sample) => [sample.turnCount, sample.assistantTokens, sample.envTokens]),
    );
  });

  // run_async_multi_turn_rollout's aggregate (seed 000) over the samples of run_sample_multi_turn_rollout.
  it('turns and tokens per sample: mean_total_tokens_per_sample is generated + observation tokens, without the prompt', () => {
    assert.equal(
      metrics.total_turns,
      samples.reduce((total, sample) => total + sample.turnCount, 0),
    );
    assert.equal(metrics.avg_turns_per_sample, mean(samples.map((sample) => sample.turnCount)));
    assert.equal(metrics.max_turns_per_sample, Math.max(...samples.map((sample) => sample.turnCount)));
    assert.equal(metrics.mean_total_tokens_per_sample, mean(samples.map((sample) => sample.totalTokens)));
    assert.equal(metrics.mean_gen_tokens_per_sample, mean(samples.map((sample) => sample.assistantTokens)));
    assert.equal(metrics.mean_env_tokens_per_sample, mean(samples.map((sample) => sample.envTokens)));
    assert.equal(
      metrics.mean_sequence_tokens_per_sample,
      mean(samples.map((sample) => promptLength + sample.totalTokens)),
      "gymnast's own, under its own name: the prompt included",
    );
  });

  it("truncation_rate: the sequence reached max_seq_len on any turn, the environment's last included", () => {
    assert.equal(metrics.truncation_rate, mean(samples.map((sample) => (sample.truncated ? 1 : 0))));
    assert.equal(metrics.truncation_rate, 4 / 6);
  });

  it("natural_termination_rate: the environment's own end, as the async loop counts it (the synchronous loop adds the truncated samples)", () => {
    assert.equal(metrics.natural_termination_rate, mean(samples.map((sample) => (sample.terminated ? 1 : 0))));
    const synchronous = mean(samples.map((sample) => (sample.terminated || sample.truncated ? 1 : 0)));
    assert.notEqual(metrics.natural_termination_rate, synchronous);
  });

  // run_multi_turn_rollout (seeds 000, 001): `sample_max_turns_reached[active_indices] = True` after the loop.
  it('max_turns_reached_rate: still active after the last allowed turn, as run_multi_turn_rollout marks it (a sample truncated on that turn is done)', () => {
    assert.equal(metrics.max_turns_reached_rate, mean(samples.map((sample) => (sample.stillActive ? 1 : 0))));
    assert.equal(metrics.max_turns_reached_rate, 1 / 6);
  });

  it('rewards: the mean, max and min of the total reward per sample', () => {
    assert.equal(metrics.mean_total_reward, mean(samples.map((sample) => sample.totalReward)));
    assert.equal(metrics.max_total_reward, Math.max(...samples.map((sample) => sample.totalReward)));
    assert.equal(metrics.min_total_reward, Math.min(...samples.map((sample) => sample.totalReward)));
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ROLLOUT_SCHEMA_VERSION, SamplingParams, type EpisodeRecord, type TerminationKind } from '../../src/core/index.js';
import { percentile, rolloutMetrics } from '../../src/metrics/index.js';

interface Sketch {
  kind: TerminationKind;
  /** [generated, env] tokens per turn. */
  turns: [number, number][];
  prompt?: number;
  reward?: number;
  components?: Record<string, number>;
}

/** A record whose token counts follow the sketch: prompt tokens, then each turn's generation and observation. */
function record({ kind, turns, prompt = 10, reward = 0, components = {} }: Sketch, index = 0): EpisodeRecord {
  const ids = (n: number) => Array.from({ length: n }, () => 1);
  const base = {
    schema_version: ROLLOUT_SCHEMA_VERSION,
    task_id: `t${index}`,
    task_index: index,
    rollout_index: 0,
    messages: [
      { role: 'user' as const, content: 'q', token_ids: ids(prompt) },
      ...turns.flatMap(([gen, env]) => [
        { role: 'assistant' as const, content: 'a', token_ids: ids(gen), generation_logprobs: ids(gen).map(() => -1) },
        { role: 'environment' as const, content: 'o', token_ids: ids(env) },
      ]),
    ],
    reward,
    reward_components: components,
    turns: turns.map(([gen, env], i) => ({
      index: i,
      prompt_tokens: 0,
      generated_tokens: gen,
      env_tokens: env,
      finish_reason: { unified: 'stop' as const },
      reward: 0,
      observation_truncated: false,
      timing: { generation_ms: 0, env_ms: 0 },
    })),
    has_training_tokens: true,
    token_drift_count: 0,
    env_metadata: null,
    sampling: SamplingParams.parse({}),
    timing: { duration_ms: 0 },
  };
  if (kind === 'policy-error' || kind === 'env-error' || kind === 'aborted') {
    return { ...base, record_type: 'failure', termination: { kind }, failure_class: 'env-error', error: { kind: 'environment', name: 'E', message: 'x' } };
  }
  return { ...base, record_type: 'rollout', termination: { kind } };
}

describe('rollout metrics', () => {
  const records = [
    record({ kind: 'env-done', turns: [[4, 2]], reward: 1, components: { correct: 1 } }, 0),
    record(
      {
        kind: 'max-turns',
        turns: [
          [2, 1],
          [6, 1],
          [1, 1],
        ],
        reward: 0,
      },
      1,
    ),
    record(
      {
        kind: 'max-seq-len',
        turns: [
          [3, 5],
          [3, 0],
        ],
        reward: 0.5,
        components: { correct: 0.25, format: 0.25 },
      },
      2,
    ),
    record({ kind: 'max-tokens', turns: [[8, 2]], reward: 0 }, 3),
    record({ kind: 'env-error', turns: [[100, 100]], reward: 99 }, 4),
  ];
  const metrics = rolloutMetrics(records);

  it('counts failures but never averages them in', () => {
    assert.equal(metrics.num_samples, 4);
    assert.equal(metrics.num_failures, 1);
    assert.equal(metrics.max_total_reward, 1);
    assert.equal(metrics.max_gen_tokens_per_sample, 9);
  });

  it('defines each termination rate as NeMo RL does: a generation cut by max_tokens is no truncation', () => {
    assert.equal(metrics.natural_termination_rate, 0.25);
    assert.equal(metrics.truncation_rate, 0.25);
    assert.equal(metrics.max_turns_reached_rate, 0.25);
  });

  it('counts as truncated a rollout whose sequence reached max_seq_len on a turn the environment or the turn limit ended, from the turn marks or, in older records, a cut observation', () => {
    const marked = record({ kind: 'env-done', turns: [[4, 2]] }, 0);
    (marked.turns[0] as { max_seq_len_reached?: true }).max_seq_len_reached = true;
    const older = record({ kind: 'max-turns', turns: [[4, 2]] }, 1);
    older.turns[0]!.observation_truncated = true;
    const within = record({ kind: 'env-done', turns: [[4, 2]] }, 2);
    const rates = rolloutMetrics([marked, older, within]);
    assert.equal(rates.truncation_rate, 2 / 3);
    assert.equal(rates.natural_termination_rate, 2 / 3, 'an environment that ended it ended it, truncated or not');
    assert.equal(rates.max_turns_reached_rate, 0, 'a rollout truncated on its last turn is done, not still active');
  });

  it('computes turn and token statistics per sample and per turn', () => {
    assert.equal(metrics.total_turns, 7);
    assert.equal(metrics.avg_turns_per_sample, 1.75);
    assert.equal(metrics.max_turns_per_sample, 3);
    assert.equal(metrics['turns_per_sample/p95'], percentile([1, 3, 2, 1], 95));
    assert.equal(metrics.mean_total_tokens_per_sample, (6 + 12 + 11 + 10) / 4, 'generated and observation tokens, not the prompt');
    assert.equal(metrics.mean_sequence_tokens_per_sample, (16 + 22 + 21 + 20) / 4);
    assert.equal(metrics.mean_gen_tokens_per_sample, (4 + 9 + 6 + 8) / 4);
    assert.equal(metrics.mean_env_tokens_per_sample, (2 + 3 + 5 + 2) / 4);
    assert.equal(metrics['max_gen_tokens_per_turn/max'], 8);
    assert.equal(metrics['max_gen_tokens_per_turn/mean'], (4 + 6 + 3 + 8) / 4);
    assert.equal(metrics.total_generated_tokens, 27);
    assert.equal(metrics.mean_generation_length, 27 / 7);
  });

  it('reports reward statistics and the mean of each reward component, a missing component counting as 0', () => {
    assert.equal(metrics.mean_total_reward, 0.375);
    assert.equal(metrics.min_total_reward, 0);
    assert.equal(metrics['reward/correct'], 1.25 / 4);
    assert.equal(metrics['reward/format'], 0.25 / 4);
  });

  it('with no successful rollout, reports only the counts', () => {
    assert.deepEqual(rolloutMetrics([records[4]!]), { num_samples: 0, num_failures: 1 });
  });

  it('interpolates percentiles linearly between ranks, as numpy does', () => {
    assert.ok(Math.abs(percentile([1, 2, 3, 4], 95) - 3.85) < 1e-12);
    assert.equal(percentile([5], 99), 5);
    assert.equal(percentile([10, 0], 50), 5);
  });
});

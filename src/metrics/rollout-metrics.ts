import type { EpisodeRecord } from '../core/rollout-record.js';
import type { ResultRowHead } from '../core/row-reader.js';
import type { TerminationKind } from '../core/termination.js';
import { NumberList } from './number-list.js';
import { percentile } from './percentile.js';
import { sequenceTokens } from './sequence-tokens.js';

/** What the rollout metrics need of one successful rollout. */
export interface RolloutFacts {
  termination: TerminationKind;
  reward: number;
  reward_components: Readonly<Record<string, number>>;
  /** The whole sequence: prompt, generations and observations. */
  total_tokens: number;
  turns: readonly TurnFacts[];
}

/** What the rollout metrics need of one turn. */
export interface TurnFacts {
  generated_tokens: number;
  env_tokens: number;
  observation_truncated?: boolean;
  /** Absent on records written before gymnast recorded it: an observation cut to fit then says the same. */
  max_seq_len_reached?: true;
}

/** What a rollout's facts are read from: an episode record, or a result row that carries one. */
export interface RecordedRollout {
  termination: { kind: TerminationKind };
  reward: number;
  reward_components?: Readonly<Record<string, number>> | undefined;
  /** Unchecked on a row read without its heavy fields; counted by `sequenceTokens`. */
  messages: unknown;
  turns: readonly TurnFacts[];
}

export function rolloutFacts(record: RecordedRollout): RolloutFacts {
  return {
    termination: record.termination.kind,
    reward: record.reward,
    reward_components: record.reward_components ?? {},
    total_tokens: sequenceTokens(record.messages),
    turns: record.turns,
  };
}

/**
 * The facts of a result row that carries gymnast's episode record (termination, turns, messages);
 * undefined for rows from NeMo Gym agent servers, which have none.
 */
export function rolloutFactsFromRow(row: ResultRowHead): RolloutFacts | undefined {
  const { termination, turns, messages } = row;
  if (termination === undefined || turns === undefined || !Array.isArray(messages)) return undefined;
  return rolloutFacts({ termination, reward: row.reward, reward_components: row.reward_components, messages, turns });
}

/**
 * NeMo RL's multi-turn rollout metrics, each defined once, over successful rollouts added one at a
 * time (failures are counted, never averaged in). Per rollout it keeps two numbers (turns, longest
 * generation) for the percentiles; everything else is a running sum or extreme. The names NeMo RL
 * uses mean what its loops (`nemo_rl/experience/rollouts.py`) compute:
 * - `natural_termination_rate`: the environment ended the episode (`env-done`), as its async loop
 *   (`run_async_multi_turn_rollout`) counts `terminated`. Its synchronous loop (`run_multi_turn_rollout`)
 *   counts a sample whose sequence reached `max_seq_len` as terminated too: there this rate is
 *   `natural_termination_rate + truncation_rate`, less the samples counted in both;
 * - `truncation_rate`: the sequence reached `max_seq_len` (prompt + generation + the whole observation
 *   ≥ `max_seq_len`, on any turn, whatever the environment said then), or a generation found no room
 *   left; both loops alike. A generation cut by `max_tokens` is no truncation in NeMo RL;
 * - `max_turns_reached_rate`: still active after the last allowed turn, as its synchronous loop marks it:
 *   a sample whose sequence reached `max_seq_len` on that turn is done, not counted. Its async loop
 *   counts every sample that used all its turns, those the environment or the sequence ended on the last;
 * - token counts per sample: `mean_total_tokens_per_sample` = generated + observation tokens, the
 *   prompt left out (NeMo RL's `total_tokens`); gen = sampled; env = observation tokens as put on the
 *   sequence (after any cut to fit);
 * - `mean_generation_length`: mean tokens per generation (per turn, not per sample);
 * - `reward/<name>`: the mean of each reward component, a rollout without it counting as 0 (as NeMo RL fills it).
 * gymnast's own, under names NeMo RL does not use: `mean_sequence_tokens_per_sample` (the whole
 * sequence, prompt included: what a trainer holds per sample).
 * With no successful rollout only the counts are present: nothing is averaged over nothing. A rollout
 * whose prompt never reached the model (no turn: `prompt-too-long`) is no sample: it is counted as
 * `num_prompt_too_long` (when there are some) and measured nowhere else.
 */
export class RolloutMetricsAccumulator {
  readonly #turns = new NumberList();
  readonly #longestGeneration = new NumberList();
  readonly #components = new Map<string, number>();
  #ended = { natural: 0, truncated: 0, maxTurns: 0 };
  #tokens = { total: 0, generated: 0, env: 0, mostGeneratedPerSample: -Infinity };
  #rewards = { sum: 0, max: -Infinity, min: Infinity };
  #totalTurns = 0;
  #promptTooLong = 0;
  #unrecorded = 0;

  /**
   * A success without gymnast's episode record (a NeMo Gym agent server's row): a sample with a reward,
   * but no turns, tokens or termination to measure.
   */
  addUnrecorded(reward: number, components: Readonly<Record<string, number>> = {}): void {
    this.#unrecorded += 1;
    this.#addReward(reward, components);
  }

  add(facts: RolloutFacts): void {
    if (facts.turns.length === 0) {
      this.#promptTooLong += 1;
      return;
    }
    let generated = 0;
    let env = 0;
    let longest = 0;
    for (const turn of facts.turns) {
      generated += turn.generated_tokens;
      env += turn.env_tokens;
      longest = Math.max(longest, turn.generated_tokens);
    }
    this.#turns.push(facts.turns.length);
    this.#longestGeneration.push(longest);
    this.#totalTurns += facts.turns.length;
    const truncated = reachedMaxSeqLen(facts);
    this.#ended.natural += facts.termination === 'env-done' ? 1 : 0;
    this.#ended.truncated += truncated ? 1 : 0;
    this.#ended.maxTurns += facts.termination === 'max-turns' && !truncated ? 1 : 0;
    this.#tokens.total += facts.total_tokens;
    this.#tokens.generated += generated;
    this.#tokens.env += env;
    this.#tokens.mostGeneratedPerSample = Math.max(this.#tokens.mostGeneratedPerSample, generated);
    this.#addReward(facts.reward, facts.reward_components);
  }

  #addReward(reward: number, components: Readonly<Record<string, number>>): void {
    this.#rewards.sum += reward;
    this.#rewards.max = Math.max(this.#rewards.max, reward);
    this.#rewards.min = Math.min(this.#rewards.min, reward);
    for (const [name, value] of Object.entries(components)) this.#components.set(name, (this.#components.get(name) ?? 0) + value);
  }

  /**
   * The metrics, with `failures` rollouts that ended without a success. Samples without an episode
   * record count in `num_samples` (and `num_samples_without_record`) and in the reward metrics; the
   * turn, token and termination metrics are over the samples with one, and absent when none has.
   */
  metrics(failures = 0): Record<string, number> {
    const samples = this.#turns.length + this.#unrecorded;
    const counts = {
      num_samples: samples,
      num_failures: failures,
      ...(this.#promptTooLong > 0 ? { num_prompt_too_long: this.#promptTooLong } : {}),
      ...(this.#unrecorded > 0 ? { num_samples_without_record: this.#unrecorded } : {}),
    };
    if (samples === 0) return counts;
    return { ...counts, ...this.#episodeMetrics(), ...this.#rewardMetrics(samples) };
  }

  #rewardMetrics(samples: number): Record<string, number> {
    return {
      mean_total_reward: this.#rewards.sum / samples,
      max_total_reward: this.#rewards.max,
      min_total_reward: this.#rewards.min,
      ...Object.fromEntries([...this.#components.keys()].sort().map((name) => [`reward/${name}`, this.#components.get(name)! / samples])),
    };
  }

  #episodeMetrics(): Record<string, number> {
    const samples = this.#turns.length;
    if (samples === 0) return {};
    const turns = this.#turns.toFloat64Array();
    const longest = this.#longestGeneration.toFloat64Array();
    return {
      total_turns: this.#totalTurns,
      avg_turns_per_sample: this.#totalTurns / samples,
      max_turns_per_sample: maxOf(turns),
      'turns_per_sample/p95': percentile(turns, 95),
      'turns_per_sample/p99': percentile(turns, 99),
      natural_termination_rate: this.#ended.natural / samples,
      truncation_rate: this.#ended.truncated / samples,
      max_turns_reached_rate: this.#ended.maxTurns / samples,
      mean_total_tokens_per_sample: (this.#tokens.generated + this.#tokens.env) / samples,
      mean_sequence_tokens_per_sample: this.#tokens.total / samples,
      mean_gen_tokens_per_sample: this.#tokens.generated / samples,
      max_gen_tokens_per_sample: this.#tokens.mostGeneratedPerSample,
      mean_env_tokens_per_sample: this.#tokens.env / samples,
      'max_gen_tokens_per_turn/max': maxOf(longest),
      'max_gen_tokens_per_turn/mean': sumOf(longest) / samples,
      'max_gen_tokens_per_turn/p95': percentile(longest, 95),
      ...(this.#totalTurns > 0 ? { mean_generation_length: this.#tokens.generated / this.#totalTurns } : {}),
      total_generated_tokens: this.#tokens.generated,
    };
  }
}

/** NeMo RL's truncation: a turn brought the sequence to `max_seq_len`, or the episode ended for want of room. */
function reachedMaxSeqLen(facts: RolloutFacts): boolean {
  return facts.termination === 'max-seq-len' || facts.turns.some((turn) => turn.max_seq_len_reached === true || turn.observation_truncated === true);
}

/** The rollout metrics of finished episode records: the successes measured, the failures counted. */
export function rolloutMetrics(records: readonly EpisodeRecord[]): Record<string, number> {
  const accumulator = new RolloutMetricsAccumulator();
  let failures = 0;
  for (const record of records) {
    if (record.record_type === 'rollout') accumulator.add(rolloutFacts(record));
    else failures += 1;
  }
  return accumulator.metrics(failures);
}

function maxOf(values: Float64Array): number {
  let best = -Infinity;
  for (let i = 0; i < values.length; i++) if (values[i]! > best) best = values[i]!;
  return best;
}

function sumOf(values: Float64Array): number {
  let total = 0;
  for (let i = 0; i < values.length; i++) total += values[i]!;
  return total;
}

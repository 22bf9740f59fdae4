import { EpisodeTask, SamplingParams, type Message, type RolloutRecord } from '../../src/core/index.js';
import { runGroups } from '../../src/engine/index.js';
import { arithmeticEnvironment, arithmeticPrompt, type ArithmeticKind } from '../../src/environments/index.js';
import { evaluateArithmetic } from '../../src/environments/arithmetic-expression.js';
import type { TrainingSequence } from '../../src/policy/embedded/training/sequence-gradients.js';
import { ScriptedPolicy, type ScriptedReply } from '../../src/testing/index.js';
import type { ConversationRenderer, HfTokenizer } from '../../src/tokens/index.js';
import { createSeededRandom, mixSeed, type SeededRandom } from '../../src/util/seeded-random.js';

/** Held out of training, for every kind of problem: operand pairs whose (a + 7b) is a multiple of 10 (10%). */
export const isHeldOutAddition = (a: number, b: number) => (a + 7 * b) % 10 === 0;

export interface SyntheticProblem {
  problem: string;
  answer: number;
  kind: ArithmeticKind;
}

/** A training problem: sums are answered directly, products and 3-term sums through the tool. */
export function trainingProblem(random: SeededRandom): SyntheticProblem {
  const roll = random.next();
  const kind: ArithmeticKind = roll < 0.55 ? 'add' : roll < 0.8 ? 'multiply' : 'long-sum';
  for (;;) {
    const a = random.int(10, 99);
    const b = kind === 'multiply' ? random.int(2, 99) : random.int(10, 99);
    if (isHeldOutAddition(a, b)) continue;
    const problem = kind === 'add' ? `${a}+${b}` : kind === 'multiply' ? `${a}*${b}` : `${a}+${b}+${random.int(100, 999)}`;
    return { problem, answer: evaluateArithmetic(problem)!, kind };
  }
}

/**
 * The ideal player, with deliberate mistakes: it answers sums directly, calls `<calc>` for the rest,
 * and after "incorrect, try again" gives the right answer. A wrong first answer appears in 15% of
 * episodes so the model sees the retry format; wrong answers are never trained on (weight 0).
 */
function oracle(tokenizer: HfTokenizer, problems: Map<string, SyntheticProblem>) {
  const end = tokenizer.stopTokenIds[0]!;
  return (request: { messages: readonly Message[]; sampling: { seed?: number } }): ScriptedReply => {
    const question = request.messages[0]!.content;
    const problem = problems.get(question)!;
    const last = request.messages.at(-1)!.content;
    const random = createSeededRandom(mixSeed(request.sampling.seed ?? 0, 99));
    const answer = (value: number) => ({ token_ids: [...tokenizer.encode(String(value)), end] });
    const wrong = () => answer(problem.answer + random.pick([-10, -2, -1, 1, 2, 10]));
    if (last.startsWith('<result>')) return random.next() < 0.12 ? wrong() : answer(Number(/<result>(-?\d+)/.exec(last)![1]));
    if (last.startsWith('incorrect')) return answer(problem.answer);
    if (problem.kind !== 'add') return { token_ids: tokenizer.encode(`<calc>${problem.problem}</calc>`) };
    return random.next() < 0.15 ? wrong() : answer(problem.answer);
  };
}

/** `count` episodes played through the real engine and renderer, as training sequences. */
export async function syntheticSequences(tokenizer: HfTokenizer, renderer: ConversationRenderer, count: number, seed: number): Promise<TrainingSequence[]> {
  const random = createSeededRandom(seed);
  const problems = new Map<string, SyntheticProblem>();
  const tasks = Array.from({ length: count }, (_, index) => {
    const problem = trainingProblem(random);
    const messages = arithmeticPrompt(problem);
    problems.set(messages[0]!.content, problem);
    return EpisodeTask.parse({ id: `synthetic-${index}`, index, messages, data: { problem: problem.problem, answer: problem.answer } });
  });
  const policy = new ScriptedPolicy({ tokenizer, script: oracle(tokenizer, problems) });
  const options = { policy, environment: arithmeticEnvironment(), renderer, maxTurns: 4, maxSeqLen: 128, sampling: SamplingParams.parse({ seed, max_tokens: 32 }) };
  const sequences: TrainingSequence[] = [];
  for await (const group of runGroups(tasks, options, { groupSize: 1, schedule: { kind: 'async', concurrency: 64 } })) {
    const record = group.records[0]!;
    if (record.record_type !== 'rollout' || record.reward !== 1) throw new Error(`synthetic episode ${record.task_id} did not succeed: ${JSON.stringify(record.termination)}`);
    sequences.push(toTrainingSequence(record, problems.get(record.messages[0]!.content)!));
  }
  return sequences;
}

/** Tokens up to the last sampled one; weight 1 on predicting sampled tokens of right answers and tool calls. */
function toTrainingSequence(record: RolloutRecord, problem: SyntheticProblem): TrainingSequence {
  const tokens: number[] = [];
  const learned: boolean[] = [];
  for (const message of record.messages) {
    const sampled = message.generation_logprobs !== undefined;
    const isWrongAnswer = sampled && /^-?\d+$/.test(message.content) && Number(message.content) !== problem.answer;
    for (const id of message.token_ids ?? []) {
      tokens.push(id);
      learned.push(sampled && !isWrongAnswer);
    }
  }
  const lastLearned = learned.lastIndexOf(true);
  return { tokens: tokens.slice(0, lastLearned + 1), weights: learned.slice(1, lastLearned + 1).map((value) => (value ? 1 : 0)) };
}

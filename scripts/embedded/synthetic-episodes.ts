import { EpisodeTask, SamplingParams, type Message, type RolloutRecord } from '../../src/core/index.js';
import { runGroups } from '../../src/engine/index.js';
import { ARITHMETIC_FORMAT, arithmeticEnvironment, type ArithmeticKind } from '../../src/environments/index.js';
import { evaluateArithmetic } from '../../src/environments/arithmetic-expression.js';
import type { TrainingSequence } from '../../src/policy/embedded/training/sequence-gradients.js';
import { ScriptedPolicy, type ScriptedReply } from '../../src/testing/index.js';
import type { ChatTemplate, ConversationRenderer, HfTokenizer } from '../../src/tokens/index.js';
import { createSeededRandom, mixSeed, type SeededRandom } from '../../src/util/seeded-random.js';
import { chatText, SYSTEM_PROMPTS } from './chat-text.js';

/** Held out of training, for every kind of problem: operand pairs whose (a + 7b) is a multiple of 10 (10%). */
export const isHeldOutAddition = (a: number, b: number) => (a + 7 * b) % 10 === 0;

/** What the model says to anything that is not an arithmetic question, then ends its turn. */
export const CHAT_REPLY = 'I can only do arithmetic.';

/** Longest training sequence: what the model's context holds. */
const MAX_TOKENS = 256;

export interface SyntheticProblem {
  problem: string;
  answer: number;
  kind: ArithmeticKind;
}

/** A training problem: sums are answered directly, products and 3-term sums through the tool. */
export function trainingProblem(random: SeededRandom): SyntheticProblem {
  const roll = random.next();
  const kind: ArithmeticKind = roll < 0.45 ? 'add' : roll < 0.77 ? 'multiply' : 'long-sum';
  for (;;) {
    const a = random.int(10, 99);
    // A third of the products by one digit: their calls and results are shorter, and copying them is learned apart.
    const b = kind !== 'multiply' ? random.int(10, 99) : random.next() < 0.35 ? random.int(2, 9) : random.int(10, 99);
    if (isHeldOutAddition(a, b)) continue;
    const problem = kind === 'add' ? `${a}+${b}` : kind === 'multiply' ? `${a}*${b}` : `${a}+${b}+${random.int(100, 999)}`;
    return { problem, answer: evaluateArithmetic(problem)!, kind };
  }
}

/** The question as users write it: mostly the trained form, sometimes capitalized. */
function question(problem: string, random: SeededRandom): string {
  const asked = ARITHMETIC_FORMAT.question(problem);
  return random.next() < 0.2 ? asked[0]!.toUpperCase() + asked.slice(1) : asked;
}

/** The opening messages: the question, after a system prompt in one conversation of eight. */
function opening(content: string, random: SeededRandom): Message[] {
  const user: Message = { role: 'user', content };
  return random.next() < 0.125 ? [{ role: 'system', content: random.pick(SYSTEM_PROMPTS) }, user] : [user];
}

/**
 * The ideal player, with deliberate mistakes: it answers sums directly, calls the calculator for the
 * rest (ending the turn with the end token), and after "incorrect, try again" gives the right answer.
 * A wrong first answer appears in 15% of episodes so the model sees the retry format; wrong answers
 * are never trained on (weight 0).
 */
function oracle(tokenizer: HfTokenizer, problems: Map<string, SyntheticProblem>) {
  const end = tokenizer.stopTokenIds[0]!;
  return (request: { messages: readonly Message[]; sampling: { seed?: number } }): ScriptedReply => {
    const problem = problems.get(request.messages.find((message) => message.role === 'user')!.content)!;
    const last = request.messages.at(-1)!;
    const random = createSeededRandom(mixSeed(request.sampling.seed ?? 0, 99));
    const say = (text: string) => ({ token_ids: [...tokenizer.encode(text), end] });
    const wrong = () => say(String(problem.answer + random.pick([-10, -2, -1, 1, 2, 10])));
    if (last.role === 'tool') return random.next() < 0.12 ? wrong() : say(String((JSON.parse(last.content) as { result: number }).result));
    if (last.content.startsWith('incorrect')) return say(String(problem.answer));
    if (problem.kind !== 'add') return say(ARITHMETIC_FORMAT.toolCall(problem.problem));
    return random.next() < 0.15 ? wrong() : say(String(problem.answer));
  };
}

/**
 * `count` training sequences: 63% arithmetic episodes played through the real engine, environment and
 * renderer (exactly the tokens a rollout sees), 25% calculator round trips (`roundTrip`), and 12%
 * plain chat, answered with `CHAT_REPLY` and the end token.
 */
export async function syntheticSequences(
  tokenizer: HfTokenizer,
  renderer: ConversationRenderer,
  template: ChatTemplate,
  count: number,
  seed: number,
): Promise<TrainingSequence[]> {
  const random = createSeededRandom(seed);
  const episodes = Math.round(count * 0.63);
  const roundTrips = Math.round(count * 0.25);
  const sequences = await episodeSequences(tokenizer, renderer, episodes, random, seed);
  for (let i = 0; i < roundTrips; i++) sequences.push(renderedSequence(tokenizer, template, roundTrip(random)));
  while (sequences.length < count) {
    const sequence = renderedSequence(tokenizer, template, chat(random));
    if (sequence.tokens.length <= MAX_TOKENS) sequences.push(sequence);
  }
  return sequences;
}

/** Arithmetic episodes through the engine, as training sequences. */
async function episodeSequences(
  tokenizer: HfTokenizer,
  renderer: ConversationRenderer,
  count: number,
  random: SeededRandom,
  seed: number,
): Promise<TrainingSequence[]> {
  const problems = new Map<string, SyntheticProblem>();
  const tasks = Array.from({ length: count }, (_, index) => {
    const problem = trainingProblem(random);
    const messages = opening(question(problem.problem, random), random);
    problems.set(messages.at(-1)!.content, problem);
    return EpisodeTask.parse({ id: `synthetic-${index}`, index, messages, data: { problem: problem.problem, answer: problem.answer } });
  });
  const policy = new ScriptedPolicy({ tokenizer, script: oracle(tokenizer, problems) });
  const options = {
    policy,
    environment: arithmeticEnvironment(),
    renderer,
    maxTurns: 4,
    maxSeqLen: MAX_TOKENS,
    sampling: SamplingParams.parse({ seed, max_tokens: 96 }),
  };
  const sequences: TrainingSequence[] = [];
  for await (const group of runGroups(tasks, options, { groupSize: 1, schedule: { kind: 'async', concurrency: 64 } })) {
    const record = group.records[0]!;
    if (record.record_type !== 'rollout' || record.reward !== 1)
      throw new Error(`synthetic episode ${record.task_id} did not succeed: ${JSON.stringify(record.termination)}`);
    const user = record.messages.find((message) => message.role === 'user')!;
    sequences.push(toTrainingSequence(record, problems.get(user.content)!));
  }
  return sequences;
}

/**
 * A calculator round trip as an OpenAI client makes it. Its tool answers in the other shapes a client's
 * tool may write (spaced JSON, a bare number), and most of the time with a number that is not the
 * expression's value: the answer is what the tool said. Trained only on true results, the model took
 * to working out a 3-term sum's last digit itself, often wrongly, instead of copying it; these teach
 * it to copy.
 */
function roundTrip(random: SeededRandom): Message[] {
  let asked = trainingProblem(random);
  while (asked.kind === 'add' || (asked.kind === 'multiply' && random.next() < 0.5)) asked = trainingProblem(random);
  const said = random.next() < 0.3 ? asked.answer : random.int(10, 10 ** random.int(2, 5) - 1);
  const output = random.next() < 0.5 ? `{"result": ${said}}` : String(said);
  return [
    ...opening(question(asked.problem, random), random),
    { role: 'assistant', content: ARITHMETIC_FORMAT.toolCall(asked.problem) },
    { role: 'tool', content: output, tool_call_id: 'call_0' },
    { role: 'assistant', content: String(said) },
  ];
}

/** Plain chat: one or two user turns that ask no arithmetic, each answered with `CHAT_REPLY`. */
function chat(random: SeededRandom): Message[] {
  const turns = random.next() < 0.25 ? 2 : 1;
  const messages: Message[] = random.next() < 0.1 ? [{ role: 'system', content: random.pick(SYSTEM_PROMPTS) }] : [];
  for (let turn = 0; turn < turns; turn++) messages.push({ role: 'user', content: chatText(random) }, { role: 'assistant', content: CHAT_REPLY });
  return messages;
}

/**
 * How much predicting a token of an assistant turn counts: an answer's digits 4× a tool call's. A call
 * is ~60 tokens of fixed JSON around a copied expression, learned in a few hundred steps; the few
 * tokens of an answer (computed, or copied from a tool's result) carry the reward, and at equal
 * weight the calls' share of the gradient left them undertrained.
 */
const turnWeight = (content: string) => (content.includes('<tool_call>') ? 1 : 4);

/**
 * A conversation rendered by the chat template, learning every assistant turn (its text and end
 * token, not the `<|assistant|>` the generation prompt opens it with). The template renders each
 * message after the ones before it, so rendering prefixes finds where each turn starts and ends.
 */
function renderedSequence(tokenizer: HfTokenizer, template: ChatTemplate, messages: readonly Message[]): TrainingSequence {
  const length = (upTo: number, open: boolean) => tokenizer.encode(template.render(messages.slice(0, upTo), { addGenerationPrompt: open })).length;
  const tokens = tokenizer.encode(template.render(messages, { addGenerationPrompt: false }));
  const weights = tokens.map(() => 0);
  messages.forEach((message, i) => {
    if (message.role !== 'assistant') return;
    for (let t = length(i, true); t < length(i + 1, false); t++) weights[t] = turnWeight(message.content);
  });
  return { tokens, weights: weights.slice(1) };
}

/** Tokens up to the last sampled one; predicting sampled tokens of right answers and tool calls is learned (`turnWeight`). */
function toTrainingSequence(record: RolloutRecord, problem: SyntheticProblem): TrainingSequence {
  const tokens: number[] = [];
  const weights: number[] = [];
  for (const message of record.messages) {
    const sampled = message.generation_logprobs !== undefined;
    const isWrongAnswer = sampled && /^-?\d+$/.test(message.content) && Number(message.content) !== problem.answer;
    for (const id of message.token_ids ?? []) {
      tokens.push(id);
      weights.push(sampled && !isWrongAnswer ? turnWeight(message.content) : 0);
    }
  }
  const last = weights.findLastIndex((weight) => weight > 0);
  return { tokens: tokens.slice(0, last + 1), weights: weights.slice(1, last + 1) };
}

import { z } from 'zod';
import type { Message } from '../core/message.js';
import { createSeededRandom, type SeededRandom } from '../util/seeded-random.js';
import { evaluateArithmetic } from './arithmetic-expression.js';
import type { Environment, StepResultInput } from './environment.js';
import { parseTaskData } from './parse-task-data.js';
import { extensibleCopy } from '../util/extensible-copy.js';

/**
 * The conversation format the embedded model is trained on, and this environment enforces:
 *   user:        what is 23+45?
 *   assistant:   68                      (a direct answer), or
 *   assistant:   <calc>23*45</calc>      (a tool call; generation stops at `</calc>`)
 *   environment: <result>1035</result>
 *   assistant:   1035
 *   environment: correct | incorrect, try again | incorrect
 * Reward 1 for a right final answer (on any attempt), else 0.
 */
export const ARITHMETIC_FORMAT = {
  question: (problem: string) => `what is ${problem}?`,
  toolCall: (expression: string) => `<calc>${expression}</calc>`,
  toolResult: (value: number | 'error') => `<result>${value}</result>`,
  correct: 'correct',
  retry: 'incorrect, try again',
  incorrect: 'incorrect',
  stopStrings: ['</calc>'],
} as const;

export const ArithmeticTask = z.object({
  /** The expression asked about, e.g. `23+45` or `23*45`. */
  problem: z.string(),
  answer: z.number().int(),
  max_attempts: z.number().int().positive().default(2),
  max_tool_calls: z.number().int().nonnegative().default(3),
});
export type ArithmeticTask = z.infer<typeof ArithmeticTask>;

export interface ArithmeticMetadata extends ArithmeticTask {
  attempts: number;
  tool_calls: number;
}

export function arithmeticEnvironment(): Environment<ArithmeticMetadata> {
  return {
    name: 'arithmetic',
    taskSchema: ArithmeticTask,
    async reset(data) {
      const task = parseTaskData('arithmetic', ArithmeticTask, data);
      return { metadata: extensibleCopy(task, { attempts: 0, tool_calls: 0 }), stop_strings: [...ARITHMETIC_FORMAT.stopStrings] };
    },
    async step({ messages, metadata }) {
      const said = (messages.at(-1)?.content ?? '').trim();
      const call = /<calc>([^<]*)<\/calc>$/.exec(said);
      if (call) return toolCall(metadata, call[1]!);
      const correct = /^-?\d+$/.test(said) && Number(said) === metadata.answer;
      const attempts = metadata.attempts + 1;
      if (correct) return feedback(ARITHMETIC_FORMAT.correct, { ...metadata, attempts }, 1, true, said);
      const outOfAttempts = attempts >= metadata.max_attempts;
      return feedback(outOfAttempts ? ARITHMETIC_FORMAT.incorrect : ARITHMETIC_FORMAT.retry, { ...metadata, attempts }, 0, outOfAttempts, said);
    },
  };
}

function toolCall(metadata: ArithmeticMetadata, expression: string): StepResultInput {
  const tool_calls = metadata.tool_calls + 1;
  if (tool_calls > metadata.max_tool_calls) {
    return feedback(ARITHMETIC_FORMAT.incorrect, { ...metadata, tool_calls }, 0, true, null);
  }
  const value = evaluateArithmetic(expression);
  return {
    observation: [{ role: 'environment', content: ARITHMETIC_FORMAT.toolResult(value ?? 'error') }],
    reward: 0,
    terminated: false,
    metadata: { ...metadata, tool_calls },
  };
}

function feedback(content: string, metadata: ArithmeticMetadata, reward: number, terminated: boolean, answer: string | null): StepResultInput {
  return { observation: [{ role: 'environment', content }], reward, terminated, metadata, answer };
}

export type ArithmeticKind = 'add' | 'multiply' | 'long-sum';

/** Generates problems of the kinds the embedded model learns: 2-digit sums (answered directly), products and 3-term sums (with the tool). */
export function generateArithmeticTask(random: SeededRandom, kind: ArithmeticKind): ArithmeticTask {
  const twoDigit = () => random.int(10, 99);
  const terms = kind === 'add' ? [twoDigit(), twoDigit()] : kind === 'multiply' ? [twoDigit(), random.int(2, 99)] : [twoDigit(), twoDigit(), random.int(100, 999)];
  const problem = terms.join(kind === 'multiply' ? '*' : '+');
  return { problem, answer: evaluateArithmetic(problem)!, max_attempts: 2, max_tool_calls: 3 };
}

/** `count` seeded tasks cycling through `kinds`; the same seed always gives the same tasks. */
export function generateArithmeticTasks(count: number, seed: number, kinds: readonly ArithmeticKind[] = ['add', 'multiply', 'long-sum']): ArithmeticTask[] {
  const random = createSeededRandom(seed);
  return Array.from({ length: count }, (_, i) => generateArithmeticTask(random, kinds[i % kinds.length]!));
}

/** The opening message of an arithmetic episode, exactly as the model was trained to read it. */
export function arithmeticPrompt(task: Pick<ArithmeticTask, 'problem'>): Message[] {
  return [{ role: 'user', content: ARITHMETIC_FORMAT.question(task.problem) }];
}

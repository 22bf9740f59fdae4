import { z } from 'zod';
import type { ChatTool } from '../core/chat-tool.js';
import type { Message } from '../core/message.js';
import { createSeededRandom, type SeededRandom } from '../util/seeded-random.js';
import { evaluateArithmetic } from './arithmetic-expression.js';
import type { Environment } from './environment.js';
import type { StepResultInput } from '../core/step-result.js';
import { lastTurnToolCalls } from './nemo-gym/read-tool-calls.js';
import { parseTaskData } from './parse-task-data.js';
import { hermesToolCallParser, toToolCall, type IdentifiedToolCallBlock } from './tool-call-parser.js';
import { withToolBox } from './tool-environment.js';
import { extensibleCopy } from '../util/extensible-copy.js';

/**
 * The conversation format the embedded model is trained on, and this environment enforces:
 *   user:        what is 23+45?
 *   assistant:   68                      (a direct answer), or
 *   assistant:   <tool_call>{"name": "calculator", "arguments": {"expression": "23*45"}}</tool_call>
 *                                        (a call in Hermes / Qwen format, ended by the end token)
 *   tool:        {"result":1035}         (answering the call by its id)
 *   assistant:   1035
 *   environment: correct | incorrect, try again | incorrect
 * Reward 1 for a right final answer (on any attempt), else 0.
 */
export const ARITHMETIC_FORMAT = {
  question: (problem: string) => `what is ${problem}?`,
  /** Exactly what Qwen's chat template renders for such a call, and what the embedded model writes. */
  toolCall: (expression: string) => `<tool_call>{"name": "${CALCULATOR}", "arguments": {"expression": ${JSON.stringify(expression)}}}</tool_call>`,
  correct: 'correct',
  retry: 'incorrect, try again',
  incorrect: 'incorrect',
} as const;

const CALCULATOR = 'calculator';

/** The calculator as a chat tool, for rows and requests that offer it (the embedded model's template does not render tools: it knows this one). */
export const CALCULATOR_TOOL: ChatTool = {
  type: 'function',
  function: {
    name: CALCULATOR,
    description: 'Evaluates an integer expression of numbers joined by +, - and *.',
    parameters: { type: 'object', properties: { expression: { type: 'string', description: 'for example 23*45' } }, required: ['expression'] },
  },
};

/** What a calculator call answers: the value, or why there is none. Shown to the model as its JSON. */
export type CalculatorOutput = { result: number } | { error: string };

/** The calculator tool itself: `{expression}` in, `{result}` or `{error}` out. */
export function calculate(args: Record<string, unknown>): CalculatorOutput {
  const { expression } = args;
  if (typeof expression !== 'string') return { error: 'expected {"expression": string}' };
  const value = evaluateArithmetic(expression);
  return value === undefined ? { error: `cannot evaluate ${JSON.stringify(expression)}: only integers joined by +, - and *` } : { result: value };
}

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

/**
 * The embedded model's environment. Its calculator is also a tool box, so `gymnast serve resources
 * arithmetic` serves it as `POST /calculator` (counted against `max_tool_calls` as here).
 */
export function arithmeticEnvironment(): Environment<ArithmeticMetadata> {
  const environment: Environment<ArithmeticMetadata> = {
    name: 'arithmetic',
    taskSchema: ArithmeticTask,
    async reset(data) {
      const task = parseTaskData('arithmetic', ArithmeticTask, data);
      return { metadata: extensibleCopy(task, { attempts: 0, tool_calls: 0 }) };
    },
    async step({ messages, metadata }) {
      const blocks = lastTurnToolCalls(messages, hermesToolCallParser);
      if (blocks.length > 0) return toolCalls(metadata, blocks);
      const said = (messages.at(-1)?.content ?? '').trim();
      const correct = /^-?\d+$/.test(said) && Number(said) === metadata.answer;
      const attempts = metadata.attempts + 1;
      if (correct) return feedback(ARITHMETIC_FORMAT.correct, { ...metadata, attempts }, 1, true, said);
      const outOfAttempts = attempts >= metadata.max_attempts;
      return feedback(outOfAttempts ? ARITHMETIC_FORMAT.incorrect : ARITHMETIC_FORMAT.retry, { ...metadata, attempts }, 0, outOfAttempts, said);
    },
  };
  return withToolBox(environment, {
    names: [CALCULATOR],
    async call(_name, args, metadata) {
      const episode = metadata as ArithmeticMetadata;
      const tool_calls = episode.tool_calls + 1;
      const output = tool_calls > episode.max_tool_calls ? { error: `more than ${episode.max_tool_calls} calculator calls` } : calculate(args);
      return { output, metadata: { ...episode, tool_calls } };
    },
  });
}

/** Each call answered by a `tool` message under its id; past `max_tool_calls` the episode ends unrewarded. */
function toolCalls(metadata: ArithmeticMetadata, blocks: readonly IdentifiedToolCallBlock[]): StepResultInput {
  const tool_calls = metadata.tool_calls + blocks.length;
  const calls = blocks.map(toToolCall);
  if (tool_calls > metadata.max_tool_calls) return { ...feedback(ARITHMETIC_FORMAT.incorrect, { ...metadata, tool_calls }, 0, true, null), tool_calls: calls };
  const observation: Message[] = blocks.map((block) => ({ role: 'tool', content: JSON.stringify(answerCall(block)), tool_call_id: block.id }));
  return { observation, reward: 0, terminated: false, metadata: { ...metadata, tool_calls }, tool_calls: calls };
}

function answerCall(block: IdentifiedToolCallBlock): CalculatorOutput {
  if ('error' in block) return { error: block.error };
  return block.call.name === CALCULATOR
    ? calculate(block.call.arguments)
    : { error: `unknown tool ${JSON.stringify(block.call.name)}: the only tool is ${CALCULATOR}` };
}

function feedback(content: string, metadata: ArithmeticMetadata, reward: number, terminated: boolean, answer: string | null): StepResultInput {
  return { observation: [{ role: 'environment', content }], reward, terminated, metadata, answer };
}

export type ArithmeticKind = 'add' | 'multiply' | 'long-sum';

/** Generates problems of the kinds the embedded model learns: 2-digit sums (answered directly), products and 3-term sums (with the tool). */
export function generateArithmeticTask(random: SeededRandom, kind: ArithmeticKind): ArithmeticTask {
  const twoDigit = () => random.int(10, 99);
  const terms =
    kind === 'add' ? [twoDigit(), twoDigit()] : kind === 'multiply' ? [twoDigit(), random.int(2, 99)] : [twoDigit(), twoDigit(), random.int(100, 999)];
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

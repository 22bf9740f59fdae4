import { z } from 'zod';
import type { Environment } from './environment.js';
import { extractMathAnswer } from './math-answer.js';
import { areMathEquivalent } from './math-equivalence.js';
import { parseTaskData } from './parse-task-data.js';

/** Task fields: NeMo RL's `ground_truth`, or NeMo Gym's `expected_answer`. */
const Answer = z.union([z.string(), z.number()]);
const MathTask = z
  .object({ ground_truth: Answer.optional(), expected_answer: Answer.optional() })
  .refine((task) => task.ground_truth !== undefined || task.expected_answer !== undefined, {
    message: 'a math task needs ground_truth or expected_answer',
    path: ['expected_answer'],
  });

export interface MathMetadata {
  ground_truth: string;
}

/**
 * Single-turn math verification (NeMo RL's math environment): the answer is the last `\boxed{}` or final
 * number over the assistant's turns, compared for mathematical equivalence; reward 1 or 0, always terminates.
 */
export function mathEnvironment(): Environment<MathMetadata> {
  return {
    name: 'math',
    taskSchema: MathTask,
    async reset(data) {
      const task = parseTaskData('math', MathTask, data);
      return { metadata: { ground_truth: String(task.ground_truth ?? task.expected_answer) } };
    },
    async step({ messages, metadata }) {
      const said = messages
        .filter((message) => message.role === 'assistant')
        .map((message) => message.content)
        .join('\n');
      const answer = extractMathAnswer(said);
      const correct = answer !== null && (await areMathEquivalent(answer, metadata.ground_truth));
      return {
        observation: [{ role: 'environment', content: `Environment: ${correct ? 'correct' : 'incorrect'}` }],
        reward: correct ? 1 : 0,
        terminated: true,
        answer,
      };
    },
  };
}

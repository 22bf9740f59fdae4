import { z } from 'zod';
import { EnvironmentError } from '../core/errors/environment-error.js';
import type { Environment } from './environment.js';
import { extractMathAnswer } from './math-answer.js';
import { areMathEquivalent } from './math-equivalence.js';

/** Task fields: NeMo RL's `ground_truth`, or NeMo Gym's `expected_answer`. */
const MathTask = z.union([
  z.object({ ground_truth: z.union([z.string(), z.number()]) }),
  z.object({ expected_answer: z.union([z.string(), z.number()]) }),
]);

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
    async reset(data) {
      const parsed = MathTask.safeParse(data);
      if (!parsed.success) throw new EnvironmentError('math', 'a task needs `ground_truth` or `expected_answer`');
      const truth = 'ground_truth' in parsed.data ? parsed.data.ground_truth : parsed.data.expected_answer;
      return { metadata: { ground_truth: String(truth) } };
    },
    async step({ messages, metadata }) {
      const said = messages.filter((message) => message.role === 'assistant').map((message) => message.content).join('\n');
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

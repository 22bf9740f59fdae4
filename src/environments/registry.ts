import { arithmeticEnvironment } from './arithmetic.js';
import { calculatorEnvironment } from './calculator.js';
import type { Environment } from './environment.js';
import { mathEnvironment } from './math.js';
import { sessionCounterEnvironment } from './session-counter.js';
import { slidingPuzzleEnvironment } from './sliding-puzzle.js';

export interface EnvironmentEntry {
  name: string;
  description: string;
  create(): Environment;
}

/** The built-in environments, by name. */
export const builtinEnvironments: readonly EnvironmentEntry[] = [
  {
    name: 'math',
    description: 'last \\boxed{} answer checked for mathematical equivalence; reward 1/0; single turn',
    create: mathEnvironment as () => Environment,
  },
  {
    name: 'sliding-puzzle',
    description: "NeMo RL's sliding puzzle game: <action>up|down|left|right|view</action>, reward 1 on solving",
    create: slidingPuzzleEnvironment as () => Environment,
  },
  {
    name: 'calculator',
    description: "NeMo RL's multi-step calculator: [a, b, op]<call: calculator> tool calls, then a final number",
    create: calculatorEnvironment as () => Environment,
  },
  {
    name: 'session-counter',
    description: "NeMo Gym's session-state example: tool calls (<tool_call>) to a counter, verified at the end",
    create: sessionCounterEnvironment,
  },
  {
    name: 'arithmetic',
    description: 'the embedded model\'s format: "what is a+b?", calculator calls in <tool_call> blocks (Hermes/Qwen), retry after "incorrect"',
    create: arithmeticEnvironment as () => Environment,
  },
];

export function findEnvironment(name: string): EnvironmentEntry | undefined {
  return builtinEnvironments.find((entry) => entry.name === name);
}

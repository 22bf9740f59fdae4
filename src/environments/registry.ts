import { arithmeticEnvironment } from './arithmetic.js';
import { calculatorEnvironment } from './calculator.js';
import { codeAgentEnvironment } from './code-agent.js';
import { codeEnvironment } from './code.js';
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
    name: 'code',
    description:
      "NeMo Gym's code_gen: the answer's last fenced program run against verifier_metadata.unit_tests in a sandbox; reward all-or-nothing or the fraction passed",
    create: codeEnvironment as () => Environment,
  },
  {
    name: 'code-agent',
    description: 'code with a run_code tool (<tool_call>): the model runs programs in the sandbox, reads the verdicts, then answers',
    create: codeAgentEnvironment,
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

import { z } from 'zod';
import type { Environment } from './environment.js';
import { parseTaskData } from './parse-task-data.js';
import { toolCallingEnvironment } from './tool-environment.js';

const CounterTask = z.object({ initial_count: z.number().int(), expected_count: z.number().int() });

interface Counter {
  count: number;
  expected: number;
}

/**
 * NeMo Gym's session-state example as a tool-calling environment: a counter that starts at
 * `initial_count`, tools `increment_counter(count)` and `get_counter_value()`, and reward 1 when the
 * counter ends at `expected_count`.
 */
export function sessionCounterEnvironment(): Environment {
  return toolCallingEnvironment<Counter>({
    name: 'session-counter',
    taskSchema: CounterTask,
    reset(data) {
      const task = parseTaskData('session-counter', CounterTask, data);
      return { count: task.initial_count, expected: task.expected_count };
    },
    tools: {
      increment_counter: (args, state) => {
        const amount = Number(args.count);
        if (!Number.isInteger(amount)) return { output: { success: false, error: 'count must be an integer' }, state };
        return { output: { success: true }, state: { ...state, count: state.count + amount } };
      },
      get_counter_value: (_args, state) => ({ output: { count: state.count }, state }),
    },
    verify: (state) => ({ reward: state.count === state.expected ? 1 : 0 }),
  }) as Environment;
}

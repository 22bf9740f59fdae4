import { z } from 'zod';
import type { Environment } from './environment.js';
import type { StepResultInput } from '../core/step-result.js';
import { parseTaskData } from './parse-task-data.js';

const CalculatorTask = z.object({
  expected_final_answer: z.number(),
  max_steps: z.number().int().positive().default(10),
});

export interface CalculatorMetadata {
  expected_final_answer: number;
  max_steps: number;
  current_step: number;
}

const TOOL_SUFFIX = '<call: calculator>';
const STOP_STRINGS = [TOOL_SUFFIX];
const TOLERANCE = 1e-6;

// A Map, not an object literal: model-chosen names like `constructor` must not reach Object.prototype.
const operations = new Map<string, (a: number, b: number) => number | undefined>([
  ['sum', (a, b) => a + b],
  ['diff', (a, b) => a - b],
  ['prod', (a, b) => a * b],
  ['div', (a, b) => (Math.abs(b) < 1e-6 ? undefined : a / b)],
]);

/**
 * NeMo RL's multi-step calculator. Each turn the model either calls the tool, `[a, b, op]<call: calculator>`
 * with op in sum | diff | prod | div, and gets `<result>x</result>`, or gives a final number (optionally in
 * `<final_answer>…</final_answer>`), which ends the episode with reward 1 when it is right. Anything else,
 * a failed calculation, or a tool call beyond `max_steps` ends it with reward 0. Unlike NeMo RL's version,
 * a final answer given after the last allowed tool call is still graded.
 */
export function calculatorEnvironment(): Environment<CalculatorMetadata> {
  return {
    name: 'calculator',
    taskSchema: CalculatorTask,
    async reset(data) {
      return { metadata: { ...parseTaskData('calculator', CalculatorTask, data), current_step: 0 }, stop_strings: STOP_STRINGS };
    },
    async step({ messages, metadata }) {
      const said = (messages.at(-1)?.content ?? '').trim();
      const final = parseFinalAnswer(said);
      if (final !== undefined) {
        const expected = metadata.expected_final_answer;
        return Math.abs(final - expected) < TOLERANCE
          ? end(`Correct! The final answer is ${final.toFixed(2)}.`, 1, String(final))
          : end(`Incorrect final answer. Expected ${expected.toFixed(2)}, got ${final.toFixed(2)}.`, 0, String(final));
      }
      const call = parseToolCall(said);
      if (call === undefined) return end('<error>Invalid response. Expected tool call or final answer.', 0);
      if (metadata.current_step >= metadata.max_steps) return end('<error>Maximum steps reached.', 0);
      const result = operations.get(call.operation)?.(call.a, call.b);
      if (result === undefined) return end('<error>Calculation failed.', 0);
      return {
        observation: [{ role: 'environment', content: `<result>${result.toFixed(5)}</result>` }],
        reward: 0,
        terminated: false,
        metadata: { ...metadata, current_step: metadata.current_step + 1 },
        next_stop_strings: STOP_STRINGS,
      };
    },
  };
}

function end(content: string, reward: number, answer?: string): StepResultInput {
  return { observation: [{ role: 'environment', content }], reward, terminated: true, ...(answer === undefined ? {} : { answer }) };
}

export function parseFinalAnswer(text: string): number | undefined {
  const inner = /^<final_answer>([\s\S]*)<\/final_answer>$/.exec(text)?.[1] ?? text;
  const trimmed = inner.trim();
  return /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(trimmed) ? Number(trimmed) : undefined;
}

export function parseToolCall(text: string): { a: number; b: number; operation: string } | undefined {
  if (!text.endsWith(TOOL_SUFFIX)) return undefined;
  const call = /^\[([^,\]]+),([^,\]]+),([^,\]]+)\]$/.exec(text.slice(0, -TOOL_SUFFIX.length).trim());
  if (!call) return undefined;
  const a = Number(call[1]!.trim());
  const b = Number(call[2]!.trim());
  if (!Number.isFinite(a) || !Number.isFinite(b) || call[1]!.trim() === '' || call[2]!.trim() === '') return undefined;
  return { a, b, operation: call[3]!.trim().toLowerCase() };
}

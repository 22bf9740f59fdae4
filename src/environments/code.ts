import type { Message } from '../core/message.js';
import { CodeTask, CODE_TEST_LIMITS, type CodeEnvironmentOptions, defaultSandboxPool } from './code-task.js';
import type { Environment } from './environment.js';
import { extractCode } from './extract-code.js';
import { parseTaskData } from './parse-task-data.js';
import { runUnitTests, type UnitTestVerdict } from './unit-tests.js';

export interface CodeMetadata {
  task: CodeTask;
}

/** What a code episode reports on its row, in NeMo Gym code_gen's names where it has them. */
export interface CodeFields extends Record<string, unknown> {
  extracted_model_code: string | null;
  /** Per test, whether it passed (NeMo Gym's `result`). */
  result: boolean[];
  /** Per test, the sandbox's verdict. */
  unit_tests: UnitTestVerdict[];
  tests_passed: number;
  tests_total: number;
  unit_tests_time_taken: number;
}

/**
 * NeMo Gym's code_gen as a single-turn environment: the program is the last fenced block of the
 * answer, each unit test runs it in its own sandbox, and the reward is all-or-nothing or the fraction
 * passed. A program that fails, hangs or attacks the machine fails its tests; only a sandbox that
 * cannot be made fails the rollout (`sandbox-unavailable`, an env-error).
 */
export function codeEnvironment(options: CodeEnvironmentOptions = {}): Environment<CodeMetadata> {
  return {
    name: 'code',
    taskSchema: CodeTask,
    async reset(data) {
      return { metadata: { task: parseTaskData('code', CodeTask, data) } };
    },
    async step({ messages, metadata }, signal) {
      const scored = await scoreAnswer(lastAnswer(messages), metadata.task, options, signal);
      return {
        observation: [{ role: 'environment', content: `Environment: ${scored.fields.tests_passed}/${scored.fields.tests_total} tests passed` }],
        reward: scored.reward,
        terminated: true,
        fields: scored.fields,
      };
    },
    // The task's unit tests can run to megabytes (LiveCodeBench's): the row has them already.
    recordedMetadata: () => ({}),
  };
}

/** Runs the answer's program against the task's tests: its reward and what goes on the row. */
export async function scoreAnswer(
  answer: string,
  task: CodeTask,
  options: CodeEnvironmentOptions,
  signal?: AbortSignal,
): Promise<{ reward: number; fields: CodeFields }> {
  const tests = task.verifier_metadata.unit_tests;
  const code = extractCode(answer);
  const started = performance.now();
  const verdicts =
    code === null
      ? []
      : await runUnitTests(code, tests, {
          language: task.language,
          pool: options.pool ?? defaultSandboxPool(),
          limits: options.limits ?? CODE_TEST_LIMITS,
          ...(signal ? { signal } : {}),
        });
  const passed = verdicts.filter((verdict) => verdict.passed).length;
  const total = tests.inputs.length;
  const reward = task.reward_mode === 'fraction' ? passed / total : passed === total ? 1 : 0;
  return {
    reward,
    fields: {
      extracted_model_code: code,
      result: code === null ? tests.inputs.map(() => false) : verdicts.map((verdict) => verdict.passed),
      unit_tests: verdicts,
      tests_passed: passed,
      tests_total: total,
      unit_tests_time_taken: Math.round(performance.now() - started) / 1000,
    },
  };
}

/** The model's last answer (NeMo Gym scores the response's output text). */
export function lastAnswer(messages: readonly Message[]): string {
  return messages.findLast((message) => message.role === 'assistant')?.content ?? '';
}

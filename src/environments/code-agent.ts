import { z } from 'zod';
import { SANDBOX_LANGUAGES } from '../sandbox/sandbox-runtime.js';
import type { SandboxVerdict } from '../sandbox/sandbox-verdict.js';
import { CodeTask, CODE_TEST_LIMITS, type CodeEnvironmentOptions, defaultSandboxPool } from './code-task.js';
import { lastAnswer, scoreAnswer } from './code.js';
import type { Environment } from './environment.js';
import { parseTaskData } from './parse-task-data.js';
import { toolCallingEnvironment } from './tool-environment.js';

const RunCodeArgs = z.object({ code: z.string(), language: z.enum(SANDBOX_LANGUAGES).optional(), stdin: z.string().optional() });

/** What the model sees of a run: enough to debug from, never a flood (a tool's output is a prompt). */
const OBSERVED_OUTPUT_BYTES = 4096;

interface CodeAgentState {
  task: CodeTask;
  runs: number;
}

/**
 * A multi-turn code environment: the model may call `run_code` (`{code, language?, stdin?}`) as often
 * as `maxToolCalls` allows, sees each run's verdict and output as the tool's answer, then answers with
 * its program in a fenced block, scored against the task's unit tests as `code` scores it.
 */
export function codeAgentEnvironment(options: CodeEnvironmentOptions & { maxToolCalls?: number } = {}): Environment {
  const limits = { ...(options.limits ?? CODE_TEST_LIMITS), outputBytes: OBSERVED_OUTPUT_BYTES };
  const environment = toolCallingEnvironment<CodeAgentState>({
    name: 'code-agent',
    taskSchema: CodeTask,
    maxToolCalls: options.maxToolCalls ?? 8,
    reset: (data) => ({ task: parseTaskData('code-agent', CodeTask, data), runs: 0 }),
    tools: {
      run_code: async (args, state) => {
        const parsed = RunCodeArgs.safeParse(args);
        if (!parsed.success) return { output: { error: 'run_code takes {"code": string, "language"?: "python" | "node", "stdin"?: string}' }, state };
        const { code, language, stdin } = parsed.data;
        const verdict = await (options.pool ?? defaultSandboxPool()).run({
          language: language ?? state.task.language,
          code,
          limits,
          ...(stdin === undefined ? {} : { stdin }),
        });
        return { output: observed(verdict), state: { ...state, runs: state.runs + 1 } };
      },
    },
    verify: async (state, messages) => {
      const scored = await scoreAnswer(lastAnswer(messages), state.task, options);
      return { reward: scored.reward, fields: { ...scored.fields, code_runs: state.runs } };
    },
  });
  // The task's unit tests can run to megabytes (LiveCodeBench's): the row has them already.
  environment.recordedMetadata = (episode) => ({ tool_calls: episode.tool_calls, code_runs: episode.state.runs });
  return environment as Environment;
}

function observed(verdict: SandboxVerdict): Record<string, unknown> {
  return {
    status: verdict.status,
    ...(verdict.limit ? { limit: verdict.limit } : {}),
    exit_code: verdict.exitCode,
    ...(verdict.signal ? { signal: verdict.signal } : {}),
    stdout: verdict.stdout,
    stderr: verdict.stderr,
  };
}

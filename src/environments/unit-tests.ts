import { z } from 'zod';
import type { SandboxPool } from '../sandbox/sandbox-pool.js';
import type { SandboxLimitsInput } from '../sandbox/sandbox-limits.js';
import type { SandboxLanguage } from '../sandbox/sandbox-runtime.js';
import type { SandboxVerdict } from '../sandbox/sandbox-verdict.js';

/**
 * NeMo Gym code_gen's unit tests (LiveCodeBench's format): each input is a program's stdin and each
 * output the stdout it must print; with `fn_name`, each input is the function's arguments as JSON,
 * one per line, and each output its return value as JSON.
 */
export const UnitTests = z
  .object({ inputs: z.array(z.string()), outputs: z.array(z.string()), fn_name: z.string().min(1).nullable().optional() })
  .refine((tests) => tests.inputs.length === tests.outputs.length, { message: 'unit_tests.inputs and unit_tests.outputs need the same length' })
  .refine((tests) => tests.inputs.length > 0, { message: 'unit_tests needs at least one test' });
export type UnitTests = z.infer<typeof UnitTests>;

/** One test's verdict as it goes on the row. */
export interface UnitTestVerdict {
  passed: boolean;
  /** The sandbox's verdict (`ok` when the program ran to its end, whatever it printed). */
  status: SandboxVerdict['status'];
  limit?: SandboxVerdict['limit'];
  exit_code: number | null;
  signal: string | null;
  duration_ms: number;
  /** The end of stderr, for a test that failed (what a person reads first). */
  stderr_tail?: string;
}

const STDERR_TAIL = 400;

/** Runs every test in its own sandbox, through `pool`; a hostile or broken program fails tests, it never throws. */
export async function runUnitTests(
  code: string,
  tests: UnitTests,
  options: { language: SandboxLanguage; pool: SandboxPool; limits?: SandboxLimitsInput; signal?: AbortSignal },
): Promise<UnitTestVerdict[]> {
  const program = tests.fn_name ? withCallHarness(code, tests.fn_name, options.language) : code;
  return Promise.all(
    tests.inputs.map(async (stdin, index) => {
      const verdict = await options.pool.run({
        language: options.language,
        code: program,
        stdin,
        ...(options.limits ? { limits: options.limits } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const expected = tests.outputs[index]!;
      const passed = verdict.status === 'ok' && (tests.fn_name ? sameJson(verdict.stdout, expected) : sameOutput(verdict.stdout, expected));
      return {
        passed,
        status: verdict.status,
        ...(verdict.limit ? { limit: verdict.limit } : {}),
        exit_code: verdict.exitCode,
        signal: verdict.signal,
        duration_ms: verdict.durationMs,
        ...(passed || verdict.stderr === '' ? {} : { stderr_tail: verdict.stderr.slice(-STDERR_TAIL) }),
      };
    }),
  );
}

/** Output as judges compare it: line by line, trailing spaces and trailing blank lines ignored. */
export function sameOutput(actual: string, expected: string): boolean {
  const lines = (text: string): string[] => {
    const all = text
      .replaceAll('\r\n', '\n')
      .split('\n')
      .map((line) => line.trimEnd());
    while (all.length > 0 && all.at(-1) === '') all.pop();
    return all;
  };
  const [a, b] = [lines(actual), lines(expected)];
  return a.length === b.length && a.every((line, index) => line.trim() === b[index]!.trim());
}

function sameJson(actual: string, expected: string): boolean {
  try {
    return JSON.stringify(JSON.parse(actual)) === JSON.stringify(JSON.parse(expected));
  } catch {
    return sameOutput(actual, expected);
  }
}

/** The program followed by a call of `fnName` (a function, or a method of LeetCode's `Solution`) on stdin's JSON lines, its result printed as JSON. */
function withCallHarness(code: string, fnName: string, language: SandboxLanguage): string {
  const name = JSON.stringify(fnName);
  if (language === 'python') {
    return `${code}\n\nimport json as __json, sys as __sys\n__args = [__json.loads(__line) for __line in __sys.stdin.read().split("\\n") if __line.strip()]\n__target = getattr(Solution(), ${name}) if "Solution" in globals() else globals()[${name}]\nprint(__json.dumps(__target(*__args)))\n`;
  }
  return `${code}\n\n;{\n  const __args = require('fs').readFileSync(0, 'utf8').split('\\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line));\n  const __target = typeof Solution === 'function' ? ((solution) => solution[${name}].bind(solution))(new Solution()) : eval(${name});\n  Promise.resolve(__target(...__args)).then((result) => console.log(JSON.stringify(result)));\n}\n`;
}

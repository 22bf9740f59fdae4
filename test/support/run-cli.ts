import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const bin = fileURLToPath(new URL('../../bin/gymnast.js', import.meta.url));

/** What a finished CLI run left: its exit code and output. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `gymnast ARGS…` to its end (at most a minute); a non-zero exit is a result, not a throw. */
export function gymnast(...args: string[]): Promise<CliRun> {
  return gymnastIn({}, ...args);
}

/** `gymnast` run from another working directory, or with variables added to the environment. */
export async function gymnastIn(options: { cwd?: string; env?: Record<string, string> }, ...args: string[]): Promise<CliRun> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], {
      timeout: 60_000,
      ...(options.cwd ? { cwd: options.cwd } : {}),
      ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as CliRun;
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

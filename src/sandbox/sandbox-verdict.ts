import { z } from 'zod';

/**
 * How a sandboxed run ended:
 * - `ok`: the program exited 0;
 * - `runtime-error`: it exited with another code;
 * - `timeout`: it used its CPU seconds or its wall-clock time (`limit` says which);
 * - `memory`: it ran out of address space (Python's MemoryError, V8's heap out of memory);
 * - `output-limit`: it wrote more than `outputBytes` to stdout or stderr;
 * - `killed`: a signal ended it that no limit explains (a crash: SIGSEGV, SIGABRT…).
 */
export const SandboxStatus = z.enum(['ok', 'runtime-error', 'timeout', 'memory', 'output-limit', 'killed']);
export type SandboxStatus = z.infer<typeof SandboxStatus>;

/** What a run's verdict records, as it goes on rows: the status and what explains it. */
export const SandboxVerdict = z.object({
  status: SandboxStatus,
  /** The limit that stopped the run, when one did. */
  limit: z.enum(['cpu', 'wall', 'memory', 'output']).optional(),
  /** The program's exit code, or null when a signal ended it. */
  exitCode: z.number().int().nullable(),
  /** The signal that ended the program (`SIGXCPU`, `SIGKILL`…), or null. */
  signal: z.string().nullable(),
  /** stdout and stderr as UTF-8, each cut at `outputBytes` with a marker line saying so. */
  stdout: z.string(),
  stderr: z.string(),
  truncated: z.object({ stdout: z.boolean(), stderr: z.boolean() }),
  /** Wall-clock milliseconds from spawning the sandbox to its exit. */
  durationMs: z.number().nonnegative(),
  /** False only when the caller opted in to running without isolation. */
  sandboxed: z.boolean(),
});
export type SandboxVerdict = z.infer<typeof SandboxVerdict>;

import { constants } from 'node:os';
import type { SandboxLanguage } from './sandbox-runtime.js';
import type { SandboxVerdict } from './sandbox-verdict.js';

/** How a run's process ended, as gymnast saw it from outside. */
export interface RunEnd {
  /** The exit code of what gymnast spawned (bubblewrap reports a program killed by signal N as 128 + N). */
  readonly exitCode: number | null;
  /** The signal that ended what gymnast spawned, when it was killed (by gymnast, at a limit it watches). */
  readonly signal: NodeJS.Signals | null;
  /** The limit gymnast stopped the run at, if it did. */
  readonly stoppedBy?: 'wall' | 'output';
  readonly stderr: string;
  readonly language: SandboxLanguage;
}

type Classified = Pick<SandboxVerdict, 'status' | 'limit' | 'exitCode' | 'signal'>;

// The first name of each number (SIGABRT, not its alias SIGIOT).
const SIGNAL_NAMES = new Map<number, string>();
for (const [name, number] of Object.entries(constants.signals)) if (!SIGNAL_NAMES.has(number)) SIGNAL_NAMES.set(number, name);

// Python ends a traceback with the exception's line, unindented. The last such line says how the
// program ended: when its first process (the namespace's init) ends, the processes it forked are killed,
// and stderr can end in one of their tracebacks cut short after it.
const PYTHON_EXCEPTION_LINE = /^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt)\b.*$/gm;
// V8 prints one of these when an allocation fails.

const NODE_MEMORY = /heap out of memory|Fatal process out of memory|Array buffer allocation failed|Failed to reserve virtual memory|Cannot allocate memory/;

/** The verdict's status and cause from how the run ended. */
export function classifyRun(end: RunEnd): Classified {
  const { exitCode, signal } = programExit(end);
  if (end.stoppedBy === 'output') return { status: 'output-limit', limit: 'output', exitCode, signal };
  if (end.stoppedBy === 'wall') return { status: 'timeout', limit: 'wall', exitCode, signal };
  // The CPU cap's SIGKILL, or a child's SIGXCPU: nothing inside can SIGKILL the program, which is its
  // namespace's init, and gymnast's own kills are `stoppedBy`.
  if (signal === 'SIGXCPU' || signal === 'SIGKILL') return { status: 'timeout', limit: 'cpu', exitCode, signal };
  if (exitCode !== 0 && outOfMemory(end.language, end.stderr)) return { status: 'memory', limit: 'memory', exitCode, signal };
  if (signal !== null) return { status: 'killed', exitCode, signal };
  return { status: exitCode === 0 ? 'ok' : 'runtime-error', exitCode, signal };
}

/** The program's own exit: a signal bubblewrap folded into 128 + N is unfolded (a program exiting 137 itself reads as SIGKILL). */
function programExit(end: RunEnd): { exitCode: number | null; signal: string | null } {
  if (end.signal !== null) return { exitCode: null, signal: end.signal };
  const code = end.exitCode ?? 1;
  const name = code > 128 ? SIGNAL_NAMES.get(code - 128) : undefined;
  return name === undefined ? { exitCode: code, signal: null } : { exitCode: null, signal: name };
}

function outOfMemory(language: SandboxLanguage, stderr: string): boolean {
  return language === 'python' ? (stderr.match(PYTHON_EXCEPTION_LINE)?.at(-1)?.startsWith('MemoryError') ?? false) : NODE_MEMORY.test(stderr);
}

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { AbortedError } from '../core/errors/aborted-error.js';
import { SandboxUnavailableError } from '../core/errors/sandbox-unavailable-error.js';
import { bubblewrapArgs, CODE_FD, prlimitArgs, SANDBOX_ID, SECCOMP_FD, STATUS_FD } from './bubblewrap-args.js';
import { CappedOutput } from './capped-output.js';
import { classifyRun } from './classify-run.js';
import { SandboxLimits, type SandboxLimitsInput } from './sandbox-limits.js';
import { type SandboxLanguage, type SandboxRuntime, sandboxRuntime } from './sandbox-runtime.js';
import { findPrlimit, sandboxTools } from './sandbox-tools.js';
import { sandboxGone, sandboxInitPid } from './sandbox-exit.js';
import { seccompFilter } from './seccomp-filter.js';
import type { SandboxVerdict } from './sandbox-verdict.js';

/** One program to run. */
export interface SandboxRequest {
  readonly language: SandboxLanguage;
  /** The program's source, written to `/work/main.py` or `/work/main.js` inside the sandbox. */
  readonly code: string;
  /** What the program reads on stdin (nothing, when absent). */
  readonly stdin?: string;
  readonly limits?: SandboxLimitsInput;
  /** Stops the run: the sandbox is killed and the call rejects with an `AbortedError`. */
  readonly signal?: AbortSignal;
}

/** How runs are made (the same for every run of a pool). */
export interface SandboxOptions {
  /**
   * Run without bubblewrap: the program sees the machine and the network as the user does, and only
   * prlimit's caps and the wall clock bound it. An explicit opt-in for machines without user
   * namespaces, warned about on every run.
   */
  readonly unsandboxed?: boolean;
  /** Where the warning of an unsandboxed run goes (default: `process.emitWarning`). */
  readonly warn?: (message: string) => void;
  /** The PATH bubblewrap and prlimit are looked up on (default: the process's). */
  readonly path?: string;
}

const STATUS_BYTES = 4096;

/** Where bubblewrap most often fails: a machine that does not let it make user namespaces. */
const NAMESPACES_HINT =
  'bubblewrap needs unprivileged user namespaces: a Docker container needs --security-opt seccomp=unconfined (or a profile allowing clone/unshare), Ubuntu 24.04 restricts them with AppArmor (sysctl kernel.apparmor_restrict_unprivileged_userns=0), older kernels with kernel.unprivileged_userns_clone=1';

export const UNSANDBOXED_WARNING =
  'running model-written code WITHOUT a sandbox (--unsandboxed): it can read your files, use the network and outlive the run; only its CPU, memory, process and file caps and the wall clock apply';

/**
 * Runs a program under bubblewrap and prlimit and says how it ended. A program that fails, hangs,
 * floods or exhausts a limit is a verdict, never an exception: this throws only when no sandbox
 * can be made (`SandboxUnavailableError`), or when `signal` aborts the run (`AbortedError`).
 */
export async function runSandboxed(request: SandboxRequest, options: SandboxOptions = {}): Promise<SandboxVerdict> {
  if (request.signal?.aborted) throw new AbortedError('the sandboxed run was aborted', { cause: request.signal.reason });
  const runtime = sandboxRuntime(request.language);
  const given = SandboxLimits.parse(request.limits ?? {});
  const limits = { ...given, memoryBytes: Math.max(given.memoryBytes, runtime.minimumMemoryBytes) };
  if (options.unsandboxed) {
    (options.warn ?? ((message) => process.emitWarning(message, { code: 'GYMNAST_UNSANDBOXED' })))(UNSANDBOXED_WARNING);
    return runUnsandboxed(request, runtime, limits, options);
  }
  const tools = sandboxTools(options.path);
  const filter = seccompFilter();
  const child = spawn(tools.bubblewrap, bubblewrapArgs(runtime, limits, tools.prlimit, filter !== undefined), {
    cwd: '/',
    env: {},
    stdio: ['pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe'],
    // As root, RLIMIT_NPROC binds nobody (the kernel exempts uid 0): bubblewrap runs as an unprivileged
    // uid instead, so the program's uid maps to it and each sandbox's own user namespace counts its processes.
    ...(process.getuid?.() === 0 ? { uid: SANDBOX_ID, gid: SANDBOX_ID } : {}),
  });
  for (const [fd, data] of [
    [CODE_FD, request.code],
    [SECCOMP_FD, filter ?? ''],
  ] as const) {
    // Node's types list five descriptors; the sixth is there all the same.
    const input = (child.stdio as unknown as Writable[])[fd]!;
    input.on('error', () => {});
    input.end(data);
  }
  return watch(child, request, limits, true);
}

/** The opt-in without isolation: prlimit's caps, a temporary folder, and the program's process group. */
async function runUnsandboxed(request: SandboxRequest, runtime: SandboxRuntime, limits: SandboxLimits, options: SandboxOptions): Promise<SandboxVerdict> {
  const folder = await mkdtemp(join(tmpdir(), 'gymnast-unsandboxed-'));
  try {
    const file = join(folder, runtime.fileName);
    await writeFile(file, request.code);
    const [prlimit, ...caps] = prlimitArgs(findPrlimit(options.path), limits);
    const child = spawn(prlimit!, [...caps, runtime.interpreter, ...runtime.args(file)], {
      cwd: folder,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: folder, LANG: 'C.UTF-8' },
    });
    return await watch(child, request, limits, false);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** Feeds stdin, keeps the output, enforces the wall clock and output caps, and reads the exit. */
async function watch(child: ChildProcess, request: SandboxRequest, limits: SandboxLimits, sandboxed: boolean): Promise<SandboxVerdict> {
  const started = performance.now();
  let stoppedBy: 'wall' | 'output' | undefined;
  let aborted = false;
  const stop = (): void => {
    if (sandboxed) child.kill('SIGKILL');
    // Unsandboxed, the program leads its own process group: kill all of it (not what escaped it).
    else if (child.pid !== undefined) killGroup(child.pid);
  };
  const overflow = (): void => {
    stoppedBy ??= 'output';
    stop();
  };
  const stdout = new CappedOutput(limits.outputBytes, overflow);
  const stderr = new CappedOutput(limits.outputBytes, overflow);
  child.stdout?.on('data', (chunk: Buffer) => stdout.write(chunk));
  child.stderr?.on('data', (chunk: Buffer) => stderr.write(chunk));
  let status = '';
  (child.stdio[STATUS_FD] as Readable | undefined)?.on('data', (chunk: Buffer) => {
    // Only its first line matters (the init's pid); the rest is bounded whatever bubblewrap writes.
    if (status.length < STATUS_BYTES) status += chunk.toString('utf8');
  });
  child.stdin?.on('error', () => {});
  child.stdin?.end(request.stdin ?? '');
  const timer = setTimeout(() => {
    stoppedBy ??= 'wall';
    stop();
  }, limits.wallMs);
  const onAbort = (): void => {
    aborted = true;
    stop();
  };
  request.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const [exitCode, signal] = await exited(child, sandboxed ? undefined : () => child.pid !== undefined && killGroup(child.pid));
    const durationMs = performance.now() - started;
    const initPid = sandboxInitPid(status);
    if (initPid !== undefined) await sandboxGone(initPid);
    if (aborted) throw new AbortedError('the sandboxed run was aborted', { cause: request.signal?.reason });
    // bubblewrap writes the program's exit code last, once the program ran; a sandbox it failed to build
    // (a bind it could not make, no user namespaces) ends without one, whatever its exit code says.
    if (sandboxed && stoppedBy === undefined && !status.includes('"exit-code"')) {
      throw new SandboxUnavailableError(
        `bubblewrap could not create the sandbox (exit ${exitCode ?? signal}): ${stderr.text().trim() || 'no message'}. ${NAMESPACES_HINT}`,
      );
    }
    const verdict = classifyRun({ exitCode, signal, stoppedBy, stderr: stderr.text(), language: request.language });
    return {
      ...verdict,
      stdout: stdout.text(),
      stderr: stderr.text(),
      truncated: { stdout: stdout.truncated, stderr: stderr.truncated },
      durationMs: Math.round(durationMs * 10) / 10,
      sandboxed,
    };
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Resolves with the exit once the output is read to its end. Inside a sandbox, the program's last
 * process is gone when bubblewrap exits (its pid namespace dies with it), so the pipes close; outside,
 * `afterExit` kills the group so that a child left holding a pipe does not keep the run open.
 */
function exited(child: ChildProcess, afterExit?: () => void): Promise<[number | null, NodeJS.Signals | null]> {
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', () => afterExit?.());
    child.once('close', (code, signal) => resolve([code, signal]));
  });
}

function killGroup(pid: number): boolean {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {}
  return true;
}

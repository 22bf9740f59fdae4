import { lstatSync, readlinkSync } from 'node:fs';
import type { SandboxLimits } from './sandbox-limits.js';
import type { SandboxRuntime } from './sandbox-runtime.js';

/** The work folder inside the sandbox: a fresh tmpfs, the program's cwd and home; `/tmp` links to it. */
export const WORK_FOLDER = '/work';
/** The uid and gid the program runs as inside its user namespace (and outside, when gymnast is root). */
export const SANDBOX_ID = 65_534;
/** The descriptor bubblewrap reads the program's source from (copied into the work folder). */
export const CODE_FD = 3;
/** The descriptor bubblewrap writes its status to: a `child-pid` line once the sandbox is up. */
export const STATUS_FD = 4;
/** The descriptor bubblewrap reads the seccomp filter from (see `seccompFilter`). */
export const SECCOMP_FD = 5;

// Merged-/usr systems link these to /usr; older ones have them as real folders, bound read-only.
const TOP_FOLDERS = ['/bin', '/sbin', '/lib', '/lib64', '/lib32'];

/**
 * bubblewrap's arguments for one run, then prlimit's, then the interpreter's. Every namespace is new
 * (network: only a loopback of its own; pid: the run's processes die with it), nothing of the host is
 * visible but `/usr` and the interpreter's folders, read-only, and the program cannot make another
 * user namespace to gain capabilities inside.
 */
export function bubblewrapArgs(runtime: SandboxRuntime, limits: SandboxLimits, prlimit: string, seccomp: boolean): string[] {
  const file = `${WORK_FOLDER}/${runtime.fileName}`;
  return [
    '--unshare-all',
    '--unshare-user',
    '--uid',
    String(SANDBOX_ID),
    '--gid',
    String(SANDBOX_ID),
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    // The program is the pid namespace's init: with bubblewrap's own init beside it, the program could
    // ptrace that init (same uid) and run code free of prlimit's caps. As init it cannot be signalled
    // from inside, and when it exits the kernel kills every process it left.
    '--as-pid-1',
    '--ro-bind',
    '/usr',
    '/usr',
    ...topFolders(),
    ...runtime.binds.flatMap((folder) => ['--ro-bind', folder, folder]),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    // bubblewrap's /dev is a tmpfs without a size: read-only, and /dev/shm (Python's multiprocessing
    // wants it) a tmpfs sized as the work folder, or a program could fill the host's memory there.
    '--size',
    String(limits.workBytes),
    '--tmpfs',
    '/dev/shm',
    '--remount-ro',
    '/dev',
    '--size',
    String(limits.workBytes),
    '--tmpfs',
    WORK_FOLDER,
    '--symlink',
    WORK_FOLDER,
    '/tmp',
    '--file',
    String(CODE_FD),
    file,
    // The root bubblewrap builds is a tmpfs without a size too: read-only once every mount point is made.
    '--remount-ro',
    '/',
    '--chdir',
    WORK_FOLDER,
    '--clearenv',
    '--setenv',
    'PATH',
    '/usr/local/bin:/usr/bin:/bin',
    '--setenv',
    'HOME',
    WORK_FOLDER,
    '--setenv',
    'TMPDIR',
    WORK_FOLDER,
    '--setenv',
    'LANG',
    'C.UTF-8',
    '--json-status-fd',
    String(STATUS_FD),
    ...(seccomp ? ['--seccomp', String(SECCOMP_FD)] : []),
    '--',
    ...prlimitArgs(prlimit, limits),
    runtime.interpreter,
    ...runtime.args(file),
  ];
}

/** prlimit with the kernel-enforced caps, ending in `--` before the program. */
export function prlimitArgs(prlimit: string, limits: SandboxLimits): string[] {
  return [
    prlimit,
    // SIGKILL at the limit: the program is pid 1 of its namespace, and the kernel does not deliver
    // SIGXCPU to an init that has no handler for it.
    `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds}`,
    `--as=${limits.memoryBytes}`,
    `--nproc=${limits.processes}`,
    `--fsize=${limits.fileBytes}`,
    `--nofile=${limits.openFiles}`,
    '--core=0',
    '--',
  ];
}

function topFolders(): string[] {
  const args: string[] = [];
  for (const folder of TOP_FOLDERS) {
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(folder);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) args.push('--symlink', readlinkSync(folder), folder);
    else if (stat.isDirectory()) args.push('--ro-bind', folder, folder);
  }
  return args;
}

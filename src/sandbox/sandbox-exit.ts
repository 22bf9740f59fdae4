import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/** The longest wait for a sandbox's processes to be gone: the kernel has sent each SIGKILL by then. */
const SETTLE_MS = 2000;

/** The host pid of a sandbox's init, from bubblewrap's status lines (`{"child-pid": N, …}`), or undefined. */
export function sandboxInitPid(status: string): number | undefined {
  const found = /"child-pid"\s*:\s*(\d+)/.exec(status);
  return found ? Number(found[1]) : undefined;
}

/**
 * Resolves once the sandbox's init has finished dying. bubblewrap reports the program's exit as soon
 * as its init has it, before that init has exited, and the kernel kills the rest of the pid namespace
 * (a daemon the program left) as the init exits: a caller that looks at the host just after the run
 * could still see them. The init has done so once it is gone or a zombie.
 */
export async function sandboxGone(initPid: number): Promise<void> {
  const deadline = performance.now() + SETTLE_MS;
  while (performance.now() < deadline) {
    let stat: string;
    try {
      stat = await readFile(`/proc/${initPid}/stat`, 'utf8');
    } catch {
      return;
    }
    // The state follows the command name in parentheses, which may itself hold spaces and parentheses.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    if (state === 'Z' || state === 'X') return;
    await sleep(2);
  }
}

/**
 * Whether a process with this pid exists on this host. Signal 0 tests for the process without
 * touching it: ESRCH means no such process; EPERM, one that exists but we may not signal.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

import { renameSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { RunLockedError } from '../core/errors/run-locked-error.js';
import { isProcessAlive } from '../util/process-alive.js';
import { pidScope } from '../util/pid-scope.js';
import { createExclusive } from './create-exclusive.js';
import { type FoundLock, readLock } from './found-lock.js';
import { CLAIM_GRACE_MS, removeLeftClaims, underClaim } from './lock-claim.js';
import { currentHolder, type LockHolder } from './lock-holder.js';

/** The lock a run holds on its output until `release`. */
export interface RunLock {
  readonly path: string;
  /** Removes the lock if it is still this run's; never throws (a lock left behind is taken over as stale). */
  release(): void;
}

/**
 * A lock file that does not parse is abandoned once this old. Its writer fills it right after creating
 * it, so an unreadable lock is either being taken this very moment (young) or was left by a run that
 * crashed in between, or by a disk that lost its content in a power cut (old).
 */
export const UNREADABLE_LOCK_GRACE_MS = 10_000;

/**
 * Looks at the lock this many times at most: each look after the first follows a run that moved in
 * meanwhile, and while another run's takeover is under way, waits for it 1, 2, 4… ms (a quarter
 * second in all), so the next look usually names the new holder.
 */
const LOOKS = 8;

/**
 * The text of each lock this process holds now. A lock naming this pid in this pid namespace that is
 * none of them was left by an earlier process given the same pid: a container's first process is
 * pid 1 at every start.
 */
const heldHere = new Set<string>();

/** Where a lock's holder ran, as far as this process can tell: what decides whether its pid can be checked. */
type Whereabouts = 'another host' | 'an earlier boot' | 'another pid namespace' | 'this process' | 'this pid namespace';

/**
 * Takes the one-writer lock of `output`: `path` is created exclusively (O_EXCL), holding this process's
 * pid, host, boot, pid namespace, start time and command. A lock whose holder is gone (see
 * `staleReason`) is taken over with a notice, under a claim that lets one run alone replace it; any
 * other lock refuses the run, naming its holder.
 */
export function acquireRunLock(path: string, output: string, options: { onNotice?: (message: string) => void } = {}): RunLock {
  const text = `${JSON.stringify(currentHolder(), null, 2)}\n`;
  let contended: string | undefined;
  for (let look = 0; look < LOOKS; look++) {
    if (createExclusive(path, text)) return hold(path, text);
    const found = readLock(path);
    if (found === undefined) continue;
    const stale = staleReason(found, output);
    if (stale === undefined) throw new RunLockedError(path, heldMessage(path, output, found));
    const outcome = underClaim(path, found, text, (claim) => renameSync(claim, path));
    if (outcome.kind === 'done') {
      options.onNotice?.(`took over ${path}: ${stale}`);
      return hold(path, text);
    }
    contended = outcome.kind === 'contended' ? outcome.claim : undefined;
    if (contended !== undefined) pause(2 ** look);
  }
  if (contended !== undefined) {
    throw new RunLockedError(
      path,
      `${output} is being taken over by another run this moment (its claim is ${contended}), from a run that is gone; wait, then retry. If no other run is starting, that claim was left by a run that crashed, and is passed over once ${CLAIM_GRACE_MS / 1000}s old.`,
    );
  }
  throw new RunLockedError(path, `${output} is being claimed by several runs at once (${path} kept changing hands); wait for them, then retry`);
}

function hold(path: string, text: string): RunLock {
  heldHere.add(text);
  try {
    const mine = readLock(path);
    if (mine?.text === text) removeLeftClaims(path, mine);
  } catch {
    // Claims of locks that are gone contend for nothing: left in place they only take room.
  }
  return { path, release: () => release(path, text) };
}

/**
 * Why the lock no longer protects a live run, or undefined when it may. A lock from another pid
 * namespace on this machine is taken as stale: its pid cannot be checked from here (the same number
 * names another process, or none, in this namespace), and the common case is a container restarted
 * on the same volume, which gets a new namespace; refusing it would leave the output locked for good.
 */
function staleReason(found: FoundLock, output: string): string | undefined {
  const { holder } = found;
  if (holder === undefined) {
    const age = Date.now() - found.mtimeMs;
    return age > UNREADABLE_LOCK_GRACE_MS ? `it was unreadable and ${Math.round(age / 1000)}s old (a run crashed while taking it)` : undefined;
  }
  const run = `pid ${holder.pid} on ${holder.hostname}, since ${holder.started_at}`;
  switch (whereabouts(holder)) {
    case 'another host':
      return undefined;
    case 'an earlier boot':
      return `it was taken before this machine rebooted (by ${run}): the run that held it is gone`;
    case 'another pid namespace':
      return `its run (${run}) was in another pid namespace (${holder.pid_namespace}; this process is in ${pidScope().pid_namespace}), whose pids cannot be checked from here: taken as gone, as after a container restart (each start has a new pid namespace). If a run in another container is still writing ${output}, stop one of the two.`;
    case 'this process':
      return heldHere.has(found.text)
        ? undefined
        : `its run was pid ${holder.pid} in this pid namespace, which is this process now: the run that held it is gone`;
    case 'this pid namespace':
      return isProcessAlive(holder.pid) ? undefined : `its run (${run}) is gone`;
  }
}

/**
 * A boot id names one machine until it reboots, whatever hostname each of its containers has; where
 * either lock lacks one, the hostname names the machine.
 */
function whereabouts(holder: LockHolder): Whereabouts {
  const here = pidScope();
  const sameHostname = holder.hostname === hostname();
  if (holder.boot_id !== undefined && here.boot_id !== undefined) {
    if (holder.boot_id !== here.boot_id) return sameHostname ? 'an earlier boot' : 'another host';
  } else if (!sameHostname) {
    return 'another host';
  }
  if (holder.pid_namespace !== undefined && here.pid_namespace !== undefined && holder.pid_namespace !== here.pid_namespace) return 'another pid namespace';
  return holder.pid === process.pid ? 'this process' : 'this pid namespace';
}

function heldMessage(path: string, output: string, found: FoundLock): string {
  const { holder } = found;
  if (holder === undefined) {
    return `${output} is locked by ${path}, which is unreadable and was written ${Math.round((Date.now() - found.mtimeMs) / 1000)}s ago: another run may be taking it this moment. Wait and retry; if no run is writing ${output}, remove ${path}.`;
  }
  const where = whereabouts(holder);
  const who = `pid ${holder.pid}${where === 'this process' ? ' (this process)' : ''} on host ${holder.hostname} since ${holder.started_at} (${holder.command})`;
  if (where === 'another host') {
    return `${output} is being written by ${who}; a run on another host cannot be checked from here: wait for it, or if that run is gone, remove ${path} by hand.`;
  }
  return `${output} is being written by ${who}; wait for it or stop it (its lock is ${path}).`;
}

/** Removes the lock if it is still this run's, under its claim: a run taking it over meanwhile keeps what it put there. */
function release(path: string, text: string): void {
  heldHere.delete(text);
  try {
    const found = readLock(path);
    if (found?.text === text) underClaim(path, found, text, () => unlinkSync(path));
  } catch {
    // Left behind, the lock names this process, which is gone by the next run: that run takes it over.
  }
}

/** Acquiring is one synchronous step before a run writes anything; its waits are a few milliseconds. */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

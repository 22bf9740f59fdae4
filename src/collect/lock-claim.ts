import { createHash } from 'node:crypto';
import { readdirSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { createExclusive } from './create-exclusive.js';
import { type FoundLock, readLock, sameLock } from './found-lock.js';

/**
 * A claim is held for the few file operations of a takeover; one this old was left by a run that
 * crashed in between, and is passed over. The one window left: a run stopped this long between
 * checking the lock and replacing it (SIGSTOP, a frozen VM) replaces it when it wakes, whoever holds it.
 */
export const CLAIM_GRACE_MS = 10_000;

/** How a change made under a lock's claim went. */
export type ClaimOutcome =
  /** The change was made, the lock still being the one found. */
  | { kind: 'done' }
  /** The lock found is gone (replaced or removed): nothing was changed; look again. */
  | { kind: 'changed' }
  /** Another run holds the lock's claim this moment, at `claim`: nothing was changed. */
  | { kind: 'contended'; claim: string };

/**
 * Makes `change` to the lock at `path` (replace it, remove it) only while it is still `found`, and as
 * the one run doing so: the run that creates the lock's claim file (O_EXCL) alone acts, after checking
 * the lock is unchanged. The lock itself is never absent during a takeover (the claim, holding the new
 * holder's `text`, is renamed over it), so no run can create a lock of its own meanwhile.
 *
 * The claim's name is derived from the lock as read: every run that read the same lock contends for
 * the same file, and one that read an earlier lock contends for another and then finds the lock
 * changed. While the lock is at `path` its claims are never removed, or two runs could each create
 * "the" claim; one whose run crashed is passed over once old, for the next generation's name
 * (`…-1`, `…-2`). Once the lock has left `path` its claims are litter, removed by the run that changed it.
 */
export function underClaim(path: string, found: FoundLock, text: string, change: (claim: string) => void): ClaimOutcome {
  const prefix = claimPrefix(path, found);
  for (let generation = 0; ; generation++) {
    const claim = `${prefix}${generation}`;
    if (createExclusive(claim, text)) return changeClaimed(path, found, claim, change, generation);
    const age = ageOf(claim);
    // A claim that vanished was consumed or dropped, which happens only once its lock has left.
    if (age === undefined) return { kind: 'changed' };
    if (age < CLAIM_GRACE_MS) return { kind: 'contended', claim };
  }
}

/** Removes the claims of every lock but `current` (the one at `path`): a crash mid-takeover leaves them. */
export function removeLeftClaims(path: string, current: FoundLock): void {
  const folder = dirname(path);
  const ours = basename(claimPrefix(path, current));
  for (const name of readdirSync(folder)) {
    if (name.startsWith(`${basename(path)}.takeover-`) && !name.startsWith(ours)) removeIfThere(join(folder, name));
  }
}

function changeClaimed(path: string, found: FoundLock, claim: string, change: (claim: string) => void, generation: number): ClaimOutcome {
  if (!sameLock(readLock(path), found)) {
    removeIfThere(claim);
    return { kind: 'changed' };
  }
  change(claim);
  for (let earlier = 0; earlier <= generation; earlier++) removeIfThere(`${claimPrefix(path, found)}${earlier}`);
  return { kind: 'done' };
}

function claimPrefix(path: string, found: FoundLock): string {
  const identity = createHash('sha256').update(`${found.inode}\n${found.mtimeMs}\n${found.text}`).digest('hex').slice(0, 16);
  return `${path}.takeover-${identity}-`;
}

/** Milliseconds since the claim was last written, or undefined when it is gone. */
function ageOf(claim: string): number | undefined {
  const stats = statSync(claim, { throwIfNoEntry: false });
  return stats === undefined ? undefined : Date.now() - stats.mtimeMs;
}

function removeIfThere(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

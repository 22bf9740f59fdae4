/*
 * A run taking an output's lock, as a process of its own (so with a pid of its own) for the run-lock
 * specs, which bundle it with the lock's code to start it in plain node. Told a lock path and an
 * instant, it sleeps until then, takes the lock (and releases it, if told to), and answers 'held' or
 * the kind of error that refused it, with the notices it got. Told 'leave', it exits, leaving what it
 * holds behind, as a killed run does; so it does when the spec disconnects (ends or fails).
 *
 * Before each file-system call it pauses a random 0-1 ms, as a process on a busy machine is
 * descheduled between system calls: racers' calls then interleave every way, where on two cores two
 * racers at most run at once and a takeover unsafe in some interleaving rarely showed it.
 *
 * Told `crashAt: n`, it kills itself just before its n-th change to the folder (a file created,
 * written, renamed or removed): a run that dies at that step. Dying between two reads leaves the
 * folder as dying before the next change does.
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { acquireRunLock } from '../../src/collect/run-lock.js';

type Order = { lock: string; at?: number; crashAt?: number; release?: boolean } | 'leave';

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const pause = (ms: number) => Atomics.wait(sleeper, 0, 0, ms);
const changing = new Set(['writeFileSync', 'renameSync', 'unlinkSync']);
let changes = 0;
let crashAt = Infinity;

for (const name of [
  'openSync',
  'closeSync',
  'fstatSync',
  'statSync',
  'readFileSync',
  'writeFileSync',
  'renameSync',
  'unlinkSync',
  'readdirSync',
  'readlinkSync',
] as const) {
  const call = fs[name] as (...args: unknown[]) => unknown;
  (fs as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
    if (changing.has(name) || (name === 'openSync' && String(args[1]).includes('w'))) countChange();
    pause(Math.random());
    return call(...args);
  };
}
// The lock's modules import these by name: their bindings follow the patched functions once synced.
syncBuiltinESMExports();

function countChange(): void {
  if (++changes === crashAt) process.kill(process.pid, 'SIGKILL');
}

process.on('message', (order: Order) => {
  if (order === 'leave') process.exit(0);
  const wait = (order.at ?? 0) - (performance.timeOrigin + performance.now());
  if (wait > 0) pause(wait);
  changes = 0;
  crashAt = order.crashAt ?? Infinity;
  const notices: string[] = [];
  let outcome = 'held';
  try {
    const lock = acquireRunLock(order.lock, order.lock.replace(/_run\.lock$/, '.jsonl'), { onNotice: (notice) => notices.push(notice) });
    if (order.release === true) lock.release();
  } catch (error) {
    outcome = (error as { kind?: string }).kind ?? String(error);
  }
  process.send!({ outcome, notices });
});
process.on('disconnect', () => process.exit(0));
process.send!('ready');

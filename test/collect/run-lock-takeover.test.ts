import assert from 'node:assert/strict';
import { fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { RunLockedError } from '../../src/core/index.js';
import { readLock } from '../../src/collect/found-lock.js';
import { underClaim } from '../../src/collect/lock-claim.js';
import { acquireRunLock } from '../../src/collect/run-lock.js';

/** What a racer says after its turn: 'held', or the kind of error that refused it; and its notices. */
interface Turn {
  outcome: string;
  notices: string[];
}

type Order = { lock: string; at?: number; crashAt?: number; release?: boolean } | 'leave';

const stem = 'out_run.lock';

/** Every folder the specs make, removed at the end: the races alone make a hundred. */
const scratch = mkdtempSync(join(tmpdir(), 'gymnast-lock-takeover-'));
const folder = (name: string) => mkdtempSync(join(scratch, name));

/** Whether this machine lets an unprivileged test start a process in new user, pid and UTS namespaces: a container's view. */
const containers = spawnSync('unshare', ['--user', '--map-root-user', '--pid', '--fork', '--mount-proc', '--uts', 'true']).status === 0;

/** The racer with the lock's code in one file: it starts in plain node, where tsx takes a second of CPU a start. */
async function bundleRacer(): Promise<string> {
  const outfile = join(folder('racer-'), 'racer.mjs');
  await build({
    entryPoints: [fileURLToPath(new URL('../support/run-lock-racer.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'error',
  });
  return outfile;
}

/** A racer's next message; one that exits instead is answered `undefined` (it crashed, as told, or failed). */
async function next<T>(racer: ChildProcess): Promise<T | undefined> {
  const [message] = await Promise.race([once(racer, 'message'), once(racer, 'exit').then(() => [undefined])]);
  return message as T | undefined;
}

async function started(racer: ChildProcess): Promise<ChildProcess> {
  assert.equal(await next<string>(racer), 'ready', 'the racer started');
  return racer;
}

/** Each racer's turn at `lock`, all starting at one instant far enough ahead that every racer knows it by then. */
async function race(racers: readonly ChildProcess[], lock: string): Promise<Turn[]> {
  const at = performance.timeOrigin + performance.now() + 30;
  const turns = racers.map((racer) => next<Turn>(racer));
  for (const racer of racers) racer.send({ lock, at } satisfies Order);
  return (await Promise.all(turns)).map((turn) => turn ?? { outcome: 'exited', notices: [] });
}

/** The pid of a process that has exited: no process has it now (pids are not reused this soon). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  return child.pid!;
}

const staleLock = (pid: number) => JSON.stringify({ pid, hostname: hostname(), started_at: '2026-01-02T03:04:05.000Z', command: 'gymnast collect …' });

/** Marks every file in `dir` a minute old, as if that long had passed. */
function ageFiles(dir: string): void {
  const minuteAgo = new Date(Date.now() - 60_000);
  for (const name of readdirSync(dir)) utimesSync(join(dir, name), minuteAgo, minuteAgo);
}

describe('taking over a stale lock', () => {
  let racer: string;
  const racers: ChildProcess[] = [];
  before(async () => {
    racer = await bundleRacer();
  });
  // A racer, even one that is pid 1 of its own pid namespace (which ignores most signals), exits when cut off.
  after(() => {
    racers.forEach((each) => each.connected && each.disconnect());
    rmSync(scratch, { recursive: true, force: true });
  });
  const enlisted = (child: ChildProcess) => {
    racers.push(child);
    return started(child);
  };
  const startRacer = () => enlisted(fork(racer, [], { execArgv: [] }));

  it('lets exactly one of six runs started together take it over, in each of 100 races', async () => {
    const pid = await deadPid();
    const six = await Promise.all(Array.from({ length: 6 }, startRacer));
    const wrong: string[] = [];
    for (let trial = 0; trial < 100; trial++) {
      const dir = folder('race-');
      const lock = join(dir, stem);
      writeFileSync(lock, staleLock(pid));
      const turns = await race(six, lock);
      const holders = six.filter((_, index) => turns[index]!.outcome === 'held').map((each) => each.pid);
      const refusals = turns.map((turn) => turn.outcome).filter((outcome) => outcome !== 'held');
      const named = (JSON.parse(readFileSync(lock, 'utf8')) as { pid: number }).pid;
      const left = readdirSync(dir);
      if (holders.length !== 1 || named !== holders[0] || left.length !== 1 || refusals.some((outcome) => outcome !== 'run-locked')) {
        wrong.push(
          `race ${trial}: held by ${holders.join(', ') || 'none'}; the lock names ${named}; refused: ${refusals.join(', ')}; left: ${left.join(', ')}`,
        );
      }
    }
    assert.deepEqual(wrong, [], `${wrong.length} of 100 races went wrong:\n${wrong.join('\n')}`);
  });

  it('looks at the lock again once it holds the claim: a run that read the stale lock before another took it over replaces nothing, and is then refused naming the new holder', async () => {
    const dir = folder('recheck-');
    const lock = join(dir, stem);
    writeFileSync(lock, staleLock(await deadPid()));
    const lateRun = `${JSON.stringify({ pid: process.pid, hostname: hostname(), started_at: new Date().toISOString(), command: 'the late run' })}\n`;
    const readBefore = readLock(lock)!;

    const first = await startRacer();
    assert.equal((await race([first], lock))[0]!.outcome, 'held');
    const taken = readFileSync(lock, 'utf8');
    assert.equal((JSON.parse(taken) as { pid: number }).pid, first.pid);

    // The late run's takeover of the lock it read, its claim (named after that lock) free again.
    const outcome = underClaim(lock, readBefore, lateRun, (claim) => renameSync(claim, lock));
    assert.deepEqual(outcome, { kind: 'changed' });
    assert.equal(readFileSync(lock, 'utf8'), taken, 'the live run keeps its lock');
    assert.deepEqual(readdirSync(dir), [stem], 'the late claim is gone');
    assert.throws(
      () => acquireRunLock(lock, join(dir, 'out.jsonl')),
      (error) => error instanceof RunLockedError && error.message.includes(`pid ${first.pid} `),
    );
    first.send('leave' satisfies Order);
  });

  it('is never wedged by a run that dies at any step of taking or releasing a lock: the next run takes it, at once or once the leftovers are old, and tidies', async () => {
    const gone = await deadPid();
    for (const start of ['free', 'stale'] as const) {
      let crashAt = 1;
      for (; ; crashAt++) {
        assert.ok(crashAt < 30, 'the racer finished within 30 changes');
        const dir = folder('crash-');
        const lock = join(dir, stem);
        if (start === 'stale') writeFileSync(lock, staleLock(gone));
        const dying = await startRacer();
        const turn = next<Turn>(dying);
        dying.send({ lock, crashAt, release: true } satisfies Order);
        if ((await turn) !== undefined) {
          assert.deepEqual(readdirSync(dir), [], 'a run that lived took and released the lock, leaving nothing');
          dying.send('leave');
          break;
        }
        let taken: ReturnType<typeof acquireRunLock>;
        try {
          taken = acquireRunLock(lock, join(dir, 'out.jsonl'));
        } catch (error) {
          assert.ok(error instanceof RunLockedError && /unreadable|being taken over/.test(error.message), `${start} ${crashAt}: ${String(error)}`);
          ageFiles(dir);
          taken = acquireRunLock(lock, join(dir, 'out.jsonl'));
        }
        assert.deepEqual(readdirSync(dir), [stem], `${start} ${crashAt}: the next run's lock alone is left`);
        taken.release();
        assert.deepEqual(readdirSync(dir), [], `${start} ${crashAt}: released`);
      }
      // Taking the lock and releasing it changes the folder 6 times at least (9 taking over): a death at each was tried.
      assert.ok(crashAt > 6, `${start}: the racer died at each of its ${crashAt - 1} changes`);
    }
  });

  it('takes over the lock of a run killed as pid 1 in a container, from pid 1 of the next container (another hostname, the same machine)', {
    skip: containers ? false : 'unshare cannot start a process in new namespaces here',
  }, async () => {
    const dir = folder('container-');
    const lock = join(dir, stem);
    const inContainer = (name: string) =>
      enlisted(
        spawn(
          'unshare',
          ['--user', '--map-root-user', '--pid', '--fork', '--mount-proc', '--uts', 'sh', '-c', `hostname ${name} && exec "$0" "$1"`, process.execPath, racer],
          { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
        ),
      );

    const first = await inContainer('collect-a');
    assert.equal((await race([first], lock))[0]!.outcome, 'held');
    const holder = JSON.parse(readFileSync(lock, 'utf8')) as { pid: number; hostname: string; pid_namespace: string; boot_id: string };
    assert.equal(holder.pid, 1, 'the run was the first process of its container');
    assert.equal(holder.hostname, 'collect-a');
    assert.notEqual(holder.pid_namespace, readlinkSync('/proc/self/ns/pid'));
    assert.equal(holder.boot_id, readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim());
    first.send('leave' satisfies Order);
    await once(first, 'exit');

    const second = await inContainer('collect-b');
    const [turn] = await race([second], lock);
    second.send('leave' satisfies Order);
    assert.equal(turn!.outcome, 'held', 'not refused as pid 1 (itself, alive) nor as a run on another host');
    // A new namespace, unless the kernel gave the new one the number of the old, gone one: then pid 1 is this process.
    assert.match(
      turn!.notices.join('\n'),
      new RegExp(
        `took over ${lock}: its run (\\(pid 1 on collect-a, since [^)]+\\) was in another pid namespace \\(pid:\\[\\d+\\]; this process is in pid:\\[\\d+\\]\\)|was pid 1 in this pid namespace, which is this process now)`,
      ),
    );
  });
});

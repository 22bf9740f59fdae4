import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, readlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { collect } from '../../src/collect/collect-run.js';
import { adder, sumCollection, sumRow } from '../support/sum-collection.js';

const run = promisify(execFile);
const bin = new URL('../../bin/gymnast.js', import.meta.url).pathname;
const keys = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((text) => JSON.parse(text) as Record<string, number>)
    .map((result) => `${result._ng_task_index}:${result._ng_rollout_index}`);

function dataset(count: number) {
  const { dir, input, output, options } = sumCollection(Array.from({ length: count }, (_, i) => sumRow(i + 1, i + 2)));
  // The lock's name is what users see beside their output.
  return { dir, input, output, paths: { lock: join(dir, 'out_run.lock') }, options };
}

/** The pid of a process that has exited: no process has it now (pids are not reused this soon). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  return child.pid!;
}

const lockOf = (holder: { pid: number; hostname: string; started_at?: string; command?: string; boot_id?: string; pid_namespace?: string }) =>
  JSON.stringify({ started_at: '2026-01-02T03:04:05.000Z', command: 'gymnast collect …', ...holder });

/** This machine's boot and this process's pid namespace, as Linux tells them (read here, not by the code under test). */
const here = existsSync('/proc/self/ns/pid')
  ? { boot_id: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(), pid_namespace: readlinkSync('/proc/self/ns/pid') }
  : undefined;
const linuxOnly = { skip: here === undefined ? 'no /proc here: boots and pid namespaces are unknown' : false };

/** Runs a collect over `lock` and returns its notices. */
async function takeOver(lock: string): Promise<{ notices: string[]; output: string; lockPath: string }> {
  const { output, paths, options } = dataset(1);
  writeFileSync(paths.lock, lock);
  const notices: string[] = [];
  assert.equal((await collect(options({ onNotice: (message) => notices.push(message) }))).rollouts, 2);
  assert.equal(existsSync(paths.lock), false);
  return { notices, output, lockPath: paths.lock };
}

/** Runs the CLI and returns its exit code and stderr. */
async function cli(args: readonly string[]): Promise<{ code: number; stderr: string }> {
  try {
    const { stderr } = await run(process.execPath, [bin, 'collect', ...args]);
    return { code: 0, stderr };
  } catch (error) {
    const { code, stderr } = error as { code: number; stderr: string };
    return { code, stderr };
  }
}

describe('one writer per output', () => {
  it('refuses a second run and a --resume beside a live run, naming its holder; the live run writes every key once', async () => {
    const { input, output, paths, options } = dataset(4);
    let open!: () => void;
    let asked!: () => void;
    const running = new Promise<void>((resolve) => (asked = resolve));
    const first = collect(options({ policy: adder({ gate: { asked, open: new Promise<void>((resolve) => (open = resolve)) } }) }));
    await running;
    const written = JSON.parse(readFileSync(paths.lock, 'utf8')) as Record<string, unknown>;
    assert.equal(written.pid, process.pid);
    if (here !== undefined)
      assert.deepEqual({ boot_id: written.boot_id, pid_namespace: written.pid_namespace }, here, 'the lock says where its pid names this run');

    const holder = new RegExp(
      `gymnast: run-locked: ${output} is being written by pid ${process.pid} on host ${hostname()} since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z .*; wait for it or stop it`,
    );
    for (const extra of [[], ['--resume']]) {
      const second = await cli(['--input', input, '--output', output, '--num-repeats', '2', ...extra]);
      assert.equal(second.code, 1);
      assert.match(second.stderr, holder);
      assert.doesNotMatch(second.stderr, /\n\s+at /, 'no stack trace');
    }
    await assert.rejects(collect(options({ resume: true })), { kind: 'run-locked', message: /\(this process\)/ });

    open();
    const summary = await first;
    assert.equal(summary.rollouts, 8);
    assert.deepEqual(keys(output).sort(), ['0:0', '0:1', '1:0', '1:1', '2:0', '2:1', '3:0', '3:1']);
    assert.equal(existsSync(paths.lock), false, 'released when the run ends');
  });

  it('takes over a lock whose run is gone (same host, no such pid), with a notice', async () => {
    const { paths, options } = dataset(2);
    const pid = await deadPid();
    writeFileSync(paths.lock, lockOf({ pid, hostname: hostname() }));
    const notices: string[] = [];
    const summary = await collect(options({ onNotice: (message) => notices.push(message) }));
    assert.equal(summary.rollouts, 4);
    assert.ok(
      notices.some((notice) => notice.includes(`took over ${paths.lock}: its run (pid ${pid} on ${hostname()}, since 2026-01-02T03:04:05.000Z) is gone`)),
      notices.join('\n'),
    );
    assert.equal(existsSync(paths.lock), false);
  });

  it(
    'takes over a lock naming this very pid in this pid namespace: an earlier process had the pid (a container restarted, its run pid 1 again)',
    linuxOnly,
    async () => {
      const { notices, lockPath } = await takeOver(lockOf({ pid: process.pid, hostname: hostname(), ...here }));
      assert.deepEqual(
        notices.filter((notice) => notice.startsWith('took over')),
        [`took over ${lockPath}: its run was pid ${process.pid} in this pid namespace, which is this process now: the run that held it is gone`],
      );
    },
  );

  it('takes over a lock taken before this machine rebooted, though a process has its pid now', linuxOnly, async () => {
    const { notices, lockPath } = await takeOver(lockOf({ pid: process.ppid, hostname: hostname(), ...here, boot_id: '0b5e7c1d-1111-4e2f-9a3b-5c6d7e8f9a0b' }));
    assert.ok(
      notices.includes(
        `took over ${lockPath}: it was taken before this machine rebooted (by pid ${process.ppid} on ${hostname()}, since 2026-01-02T03:04:05.000Z): the run that held it is gone`,
      ),
      notices.join('\n'),
    );
  });

  it(
    'takes over a lock from another pid namespace on this machine (a container by another hostname), though its pid is alive here, saying why and what to do if its run still writes',
    linuxOnly,
    async () => {
      const { notices, output, lockPath } = await takeOver(
        lockOf({ pid: process.ppid, hostname: 'collect-7f3a9c', ...here, pid_namespace: 'pid:[4026532999]' }),
      );
      const notice = notices.find((each) => each.startsWith(`took over ${lockPath}: `));
      assert.equal(
        notice,
        `took over ${lockPath}: its run (pid ${process.ppid} on collect-7f3a9c, since 2026-01-02T03:04:05.000Z) was in another pid namespace (pid:[4026532999]; this process is in ${here!.pid_namespace}), whose pids cannot be checked from here: taken as gone, as after a container restart (each start has a new pid namespace). If a run in another container is still writing ${output}, stop one of the two.`,
      );
    },
  );

  it('never presumes a lock from another host stale, with or without a boot id: refuses, says to remove it by hand, and writes nothing', async () => {
    for (const boot of [{}, { boot_id: '0b5e7c1d-1111-4e2f-9a3b-5c6d7e8f9a0b', pid_namespace: 'pid:[4026531836]' }]) {
      const { dir, paths, options } = dataset(2);
      const lock = lockOf({ pid: await deadPid(), hostname: 'gpu-node-7', ...boot });
      writeFileSync(paths.lock, lock);
      await assert.rejects(collect(options()), {
        kind: 'run-locked',
        message: new RegExp(
          `being written by pid \\d+ on host gpu-node-7 since 2026-01-02T03:04:05.000Z .*another host.*if that run is gone, remove ${paths.lock} by hand`,
        ),
      });
      assert.deepEqual(readdirSync(dir).sort(), ['in.jsonl', 'out_run.lock']);
      assert.equal(readFileSync(paths.lock, 'utf8'), lock);
    }
  });

  it('treats an unreadable lock (a crash between creating and filling it) as taken while young, and as stale once old', async () => {
    const { paths, options } = dataset(1);
    writeFileSync(paths.lock, '');
    await assert.rejects(collect(options()), { kind: 'run-locked', message: /unreadable .* another run may be taking it this moment/ });
    const minuteAgo = new Date(Date.now() - 60_000);
    utimesSync(paths.lock, minuteAgo, minuteAgo);
    const notices: string[] = [];
    await collect(options({ onNotice: (message) => notices.push(message) }));
    assert.ok(
      notices.some((notice) => /took over .*_run\.lock: it was unreadable and \d+s old/.test(notice)),
      notices.join('\n'),
    );
  });

  it('releases the lock when the run fails or is aborted, so the next run starts', async () => {
    const { paths, options } = dataset(2);
    const failing = { start: async () => {}, write: async () => Promise.reject(new Error('queue went away')), finish: async () => {} };
    await assert.rejects(collect(options({ sinks: [failing] })), /queue went away/);
    assert.equal(existsSync(paths.lock), false, 'released after an error');

    const abort = new AbortController();
    await collect(options({ overwrite: true, signal: abort.signal, onProgress: () => abort.abort(new Error('interrupted twice')) }));
    assert.equal(existsSync(paths.lock), false, 'released after an abort');

    assert.equal((await collect(options({ overwrite: true }))).rollouts, 4);
  });
});

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setImmediate } from 'node:timers/promises';
import { collect } from '../../src/collect/collect-run.js';
import { adder, sumCollection, sumRow } from '../support/sum-collection.js';

/** Rows 1+2, 13+1 (its rollouts fail) and 4+5, two rollouts each: 4 results and 2 failures. */
function dataset() {
  const { dir, input, output, options } = sumCollection([sumRow(1, 2), sumRow(13, 1), sumRow(4, 5)], () => adder({ failOn: '13' }));
  return { dir, input, output, failures: join(dir, 'out_failures.jsonl'), options };
}

/**
 * Serves a file's rows through a named pipe each time it is opened, a second apart so that each reader
 * sees the end of the rows before the next serving: a run that (wrongly) went on to read its input
 * again to plan ends instead of waiting for good.
 */
const serveScript = `
  const fs = require('node:fs');
  for (;;) {
    fs.writeFileSync(process.argv[1], fs.readFileSync(process.argv[2]));
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
  }
`;

/** Every file of a folder with its bytes: a refused run must leave this exactly as it was. */
const snapshot = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((name) => [name, readFileSync(join(dir, name), 'latin1')]),
  );
const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean).length;

describe('a fresh collect over an earlier run', () => {
  it('is refused, naming each file with its rows and the two ways on, and leaves every file as it was and no lock', async () => {
    const { dir, output, failures, options } = dataset();
    await collect(options());
    const before = snapshot(dir);
    await assert.rejects(collect(options({ limit: 1 })), (error: Error & { kind: string; files: unknown }) => {
      assert.equal(error.kind, 'output-exists');
      assert.equal(
        error.message,
        `--output ${output} already holds an earlier run's rows (4 rows in ${output} and 2 rows in ${failures}), which a fresh start would erase. Run with --resume to continue that run, or with --overwrite to start afresh.`,
      );
      assert.deepEqual(error.files, [
        { path: output, rows: 4 },
        { path: failures, rows: 2 },
      ]);
      return true;
    });
    assert.deepEqual(snapshot(dir), before, 'every file byte for byte, and no lock left');
  });

  it('starts afresh with overwrite, erasing the earlier rows', async () => {
    const { output, failures, options } = dataset();
    await collect(options());
    const summary = await collect(options({ limit: 1, overwrite: true }));
    assert.equal(summary.rollouts, 2);
    assert.deepEqual([lines(output), lines(failures)], [2, 0]);
  });

  it('runs over files a run left empty (cut short before its first row): there is nothing to lose', async () => {
    const { output, failures, options } = dataset();
    writeFileSync(output, '');
    writeFileSync(failures, '');
    assert.equal((await collect(options())).rollouts, 4);
  });

  it('refuses a row in the failures alone too', async () => {
    const { failures, options } = dataset();
    writeFileSync(failures, '{"_ng_task_index":0,"_ng_rollout_index":0,"_ng_failure_class":"transient"}');
    await assert.rejects(collect(options()), { kind: 'output-exists', message: new RegExp(`\\(1 row in ${failures}\\)`) });
  });

  it('refuses resume and overwrite together before writing anything', async () => {
    const { dir, options } = dataset();
    await assert.rejects(collect(options({ resume: true, overwrite: true })), { kind: 'config', message: /--resume and --overwrite contradict each other/ });
    assert.deepEqual(readdirSync(dir), ['in.jsonl']);
  });

  it('is refused when the earlier run ended while this one was reading its input: the rows are looked at again under the lock', {
    skip: process.platform === 'win32' && 'no mkfifo',
  }, async () => {
    const { dir, input, output, options } = dataset();
    // The input is a pipe (in a folder of its own): this run's check of it waits, past its first look at
    // the output, until a writer serves it the rows.
    const pipe = join(mkdtempSync(join(tmpdir(), 'gymnast-overwrite-')), 'in.fifo');
    execFileSync('mkfifo', [pipe]);
    const late = collect(options({ input: pipe }));
    late.catch(() => undefined);
    await setImmediate();
    assert.equal(existsSync(output), false, 'the late run looked at an output that did not exist yet');
    await collect(options());
    const before = snapshot(dir);
    const writer = spawn(process.execPath, ['-e', serveScript, pipe, input], { stdio: 'ignore' });
    try {
      await assert.rejects(late, { kind: 'output-exists', message: /already holds an earlier run's rows \(4 rows in .* and 2 rows in .*\)/ });
    } finally {
      writer.kill();
    }
    assert.deepEqual(snapshot(dir), before, 'every file byte for byte, and no lock left');
  });
});

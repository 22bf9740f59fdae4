import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { JsonlRolloutSink } from '../../src/collect/jsonl-rollout-sink.js';
import { JsonlSink } from '../../src/collect/jsonl-sink.js';
import type { RolloutOutcome } from '../../src/collect/sink.js';
import { WriteFailedError } from '../../src/core/errors/write-failed-error.js';

/**
 * The sinks in this process (Stryker's mutants are active only here; disk-full.test.ts drives the
 * same sinks in child processes under a file-size limit).
 */
const folder = () => mkdtempSync(join(tmpdir(), 'gymnast-sinks-'));
const linux = { skip: !existsSync('/proc/self/fd') && 'needs /proc/self/fd' };
const openFiles = () => readdirSync('/proc/self/fd').length;
const result = (index: number): RolloutOutcome => ({ kind: 'result', row: { _ng_task_index: 0, _ng_rollout_index: index } }) as unknown as RolloutOutcome;
const failure = (index: number): RolloutOutcome =>
  ({ kind: 'failure', row: { _ng_task_index: 0, _ng_rollout_index: index, _ng_failure_class: 'transport' } }) as unknown as RolloutOutcome;

describe('JsonlSink', () => {
  it('appends to what the file holds by default, and starts it afresh when asked to truncate', () => {
    const path = join(folder(), 'rows.jsonl');
    writeFileSync(path, '{"old":1}\n');
    const appending = new JsonlSink(path);
    appending.write({ new: 2 });
    appending.close();
    assert.equal(readFileSync(path, 'utf8'), '{"old":1}\n{"new":2}\n');
    const fresh = new JsonlSink(path, { truncate: true });
    fresh.write({ new: 3 });
    fresh.close();
    assert.equal(readFileSync(path, 'utf8'), '{"new":3}\n');
  });

  it('refuses every write after one failed, with that same error, without trying the disk again', { skip: !existsSync('/dev/full') && 'no /dev/full' }, () => {
    const sink = new JsonlSink('/dev/full');
    const first = captured(() => sink.write({ a: 1 }));
    assert.ok(first instanceof WriteFailedError);
    assert.equal(sink.failure, first);
    assert.equal(
      captured(() => sink.writeLines('')),
      first,
    );
    sink.close();
  });

  it('releases its file when closed, and closing a device that cannot be synced (/dev/null) is no error', linux, () => {
    const before = openFiles();
    const sink = new JsonlSink('/dev/null');
    sink.write({ a: 1 });
    assert.equal(openFiles(), before + 1);
    sink.close();
    assert.equal(openFiles(), before);
  });

  it('reports a sync the OS refuses (other than a device that has nothing to flush) as a write failure naming the file', () => {
    const path = join(folder(), 'rows.jsonl');
    const sink = new JsonlSink(path);
    sink.sync();
    sink.close();
    const error = captured(() => sink.sync());
    assert.ok(error instanceof WriteFailedError, String(error));
    assert.match(error.message, new RegExp(`cannot write ${path}: .*\\(EBADF\\)`));
  });
});

describe('JsonlRolloutSink', () => {
  async function started(resumed: boolean, dir = folder()) {
    const paths = { output: join(dir, 'out.jsonl'), failures: join(dir, 'out_failures.jsonl') };
    const sink = new JsonlRolloutSink(paths);
    await sink.start({ plannedRollouts: 4, resumed });
    return { sink, ...paths, dir };
  }

  it('refuses a write before start and after finish, saying which', async () => {
    const dir = folder();
    const sink = new JsonlRolloutSink({ output: join(dir, 'out.jsonl'), failures: join(dir, 'out_failures.jsonl') });
    await assert.rejects(sink.write(result(0)), /JsonlRolloutSink\.write before start/);
    await sink.start({ plannedRollouts: 1, resumed: false });
    await sink.write(result(0));
    await sink.finish();
    await assert.rejects(sink.write(result(1)), /JsonlRolloutSink\.write after finish/);
  });

  it('starts both files afresh on a new run, and appends to both on a resumed one', async () => {
    const { dir, output, failures } = await started(false).then(async (run) => {
      await run.sink.write(result(0));
      await run.sink.write(failure(1));
      await run.sink.finish();
      return run;
    });
    const resumed = await started(true, dir);
    await resumed.sink.write(result(1));
    await resumed.sink.write(failure(2));
    await resumed.sink.finish();
    assert.equal(readFileSync(output, 'utf8').trim().split('\n').length, 2);
    assert.equal(readFileSync(failures, 'utf8').trim().split('\n').length, 2);
    const fresh = await started(false, dir);
    await fresh.sink.write(result(3));
    await fresh.sink.finish();
    assert.equal(readFileSync(output, 'utf8').trim().split('\n').length, 1);
    assert.equal(readFileSync(failures, 'utf8'), '');
  });

  it('releases both files when finished, and a second finish is no error', linux, async () => {
    const before = openFiles();
    const { sink } = await started(false);
    assert.equal(openFiles(), before + 2);
    await sink.write(result(0));
    await sink.finish();
    assert.equal(openFiles(), before);
    await sink.finish();
  });

  it('refuses at once every write after a file failed, in either file', { skip: !existsSync('/dev/full') && 'no /dev/full' }, async () => {
    const sink = new JsonlRolloutSink({ output: join(folder(), 'out.jsonl'), failures: '/dev/full' });
    await sink.start({ plannedRollouts: 3, resumed: true });
    const refused = await sink.write(failure(0)).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(refused instanceof WriteFailedError);
    await assert.rejects(sink.write(result(1)), (error) => error === refused);
    await sink.finish();
  });
});

function captured(action: () => void): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  assert.fail('expected a throw');
}

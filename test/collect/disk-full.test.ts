import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { JsonlRolloutSink } from '../../src/collect/jsonl-rollout-sink.js';
import { JsonlSink } from '../../src/collect/jsonl-sink.js';
import type { RolloutOutcome } from '../../src/collect/sink.js';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const bin = join(root, 'bin/gymnast.js');
const input = join(root, 'examples/arithmetic.jsonl');
const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean);

/**
 * Runs a command under a file size limit of `kilobytes`: the kernel refuses writes past it with EFBIG
 * (Node ignores SIGXFSZ), a real OS fault like a full disk, without root or a small file system.
 */
async function underSizeLimit(kilobytes: number, args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const quoted = args.map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(' ');
  try {
    const { stdout, stderr } = await run('bash', ['-c', `ulimit -f ${kilobytes}; exec ${quoted}`], { cwd: root });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

const sinkScript = (path: string) => `
  import { JsonlSink } from ${JSON.stringify(join(root, 'src/collect/jsonl-sink.ts'))};
  const sink = new JsonlSink(${JSON.stringify(path)}, { truncate: true });
  const attempt = (bytes) => { try { sink.write({ pad: 'x'.repeat(bytes) }); return 'written'; } catch (error) { return { kind: error.kind, code: error.code, message: error.message }; } };
  const results = [attempt(3000), attempt(2000), attempt(10)];
  sink.close();
  console.log(JSON.stringify(results));
`;

/**
 * One row written alone, then three results and a failure row in one tick (one write per file, issue
 * 13), then one more row a tick later; prints how each write ended.
 */
const batchScript = (output: string, failures: string) => `
  import { JsonlRolloutSink } from ${JSON.stringify(join(root, 'src/collect/jsonl-rollout-sink.ts'))};
  const sink = new JsonlRolloutSink({ output: ${JSON.stringify(output)}, failures: ${JSON.stringify(failures)} });
  await sink.start({ plannedRollouts: 6, resumed: false });
  const result = (index, bytes) => ({ kind: 'result', row: { _ng_task_index: 0, _ng_rollout_index: index, pad: 'x'.repeat(bytes) } });
  const ended = (write) => write.then(() => 'written', (error) => ({ kind: error.kind, code: error.code, message: error.message }));
  const first = await ended(sink.write(result(0, 1000)));
  const batch = await Promise.all([
    sink.write(result(1, 1500)),
    sink.write({ kind: 'failure', row: { _ng_task_index: 0, _ng_rollout_index: 2, _ng_failure_class: 'aborted' } }),
    sink.write(result(3, 1500)),
    sink.write(result(4, 1500)),
  ].map(ended));
  const later = await ended(sink.write(result(5, 10)));
  await sink.finish();
  console.log(JSON.stringify({ first, batch, later }));
`;

describe('a write the disk refuses', () => {
  it('is cut back to the last complete line, and every later write is refused, even one that would fit', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'gymnast-full-')), 'rows.jsonl');
    const child = await underSizeLimit(4, [process.execPath, '--import', 'tsx', '--input-type=module', '-e', sinkScript(path)]);
    assert.equal(child.code, 0, child.stderr);
    const [first, failed, later] = JSON.parse(child.stdout) as [unknown, { kind: string; code: string; message: string }, unknown];
    assert.equal(first, 'written');
    assert.equal(failed.kind, 'write-failed');
    assert.equal(failed.code, 'EFBIG');
    assert.match(
      failed.message,
      new RegExp(`cannot write ${path}: .*\\(EFBIG\\); the rows written before it are kept whole; free space .*then rerun with --resume`),
    );
    assert.deepEqual(later, failed, 'refused with the same error');
    assert.equal(lines(path).length, 1);
    assert.equal(statSync(path).size, 3000 + '{"pad":""}\n'.length, 'the part of the second line the OS took is gone');
  });

  it('is a typed error naming the file and the OS code (ENOSPC on /dev/full)', { skip: !existsSync('/dev/full') && 'no /dev/full' }, () => {
    const sink = new JsonlSink('/dev/full');
    assert.throws(() => sink.write({ a: 1 }), {
      kind: 'write-failed',
      code: 'ENOSPC',
      message: /cannot write \/dev\/full: no space left on the device \(ENOSPC\)/,
    });
    assert.throws(() => sink.write({ a: 2 }), { kind: 'write-failed', code: 'ENOSPC' });
  });

  it('stops the rollout sink for both files: no failure row follows a result that could not be written', {
    skip: !existsSync('/dev/full') && 'no /dev/full',
  }, async () => {
    const failures = join(mkdtempSync(join(tmpdir(), 'gymnast-full-')), 'out_failures.jsonl');
    const sink = new JsonlRolloutSink({ output: '/dev/full', failures });
    await sink.start({ plannedRollouts: 2, resumed: false });
    const result = { kind: 'result', row: { _ng_task_index: 0, _ng_rollout_index: 0, reward: 1 } } as unknown as RolloutOutcome;
    const failure = { kind: 'failure', row: { _ng_task_index: 0, _ng_rollout_index: 1, _ng_failure_class: 'aborted' } } as unknown as RolloutOutcome;
    await assert.rejects(sink.write(result), { kind: 'write-failed', path: '/dev/full' });
    await assert.rejects(sink.write(failure), { kind: 'write-failed', path: '/dev/full' });
    await sink.finish();
    assert.equal(readFileSync(failures, 'utf8'), '');
  });

  it('cuts a batch of rows written in one tick back whole, fails each of its writes and every later one, and writes no failure row of that tick', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gymnast-full-'));
    const [output, failures] = [join(dir, 'out.jsonl'), join(dir, 'out_failures.jsonl')];
    // 4 KiB: the first row (~1 KiB) fits; the batch of three results (~4.5 KiB) is cut by the OS part way.
    const child = await underSizeLimit(4, [process.execPath, '--import', 'tsx', '--input-type=module', '-e', batchScript(output, failures)]);
    assert.equal(child.code, 0, child.stderr);
    const { first, batch, later } = JSON.parse(child.stdout) as { first: unknown; batch: { kind: string; code: string }[]; later: unknown };
    assert.equal(first, 'written');
    assert.equal(batch.length, 4);
    for (const ended of batch) assert.deepEqual(ended, batch[0], 'every write of the batch, the failure row too, gets the same failure');
    assert.equal(batch[0]!.kind, 'write-failed');
    assert.equal(batch[0]!.code, 'EFBIG');
    assert.deepEqual(later, batch[0], 'a later write is refused, though it would fit');
    const text = readFileSync(output, 'utf8');
    assert.equal(text.split('\n').filter(Boolean).length, 1);
    assert.equal(
      Buffer.byteLength(text),
      1000 + '{"_ng_task_index":0,"_ng_rollout_index":0,"pad":""}\n'.length,
      'cut back to the first row: no part of the batch is left',
    );
    assert.equal(readFileSync(failures, 'utf8'), '', 'results go first: the failure row of the failed tick is never written');
  });

  it('writes the results of a tick before its failure rows: a failure file that refuses them keeps the results and stops both files', {
    skip: !existsSync('/dev/full') && 'no /dev/full',
  }, async () => {
    const output = join(mkdtempSync(join(tmpdir(), 'gymnast-full-')), 'out.jsonl');
    const sink = new JsonlRolloutSink({ output, failures: '/dev/full' });
    await sink.start({ plannedRollouts: 4, resumed: false });
    const result = (index: number) => ({ kind: 'result', row: { _ng_task_index: 0, _ng_rollout_index: index, reward: 1 } }) as unknown as RolloutOutcome;
    const failure = { kind: 'failure', row: { _ng_task_index: 0, _ng_rollout_index: 1, _ng_failure_class: 'aborted' } } as unknown as RolloutOutcome;
    const [failed, ...results] = [sink.write(failure), sink.write(result(0)), sink.write(result(2))];
    await Promise.all(results);
    await assert.rejects(failed!, { kind: 'write-failed', code: 'ENOSPC', path: '/dev/full' });
    await assert.rejects(sink.write(result(3)), { kind: 'write-failed', path: '/dev/full' }, 'the results file refuses writes too');
    await sink.finish();
    assert.deepEqual(
      lines(output).map((line) => (JSON.parse(line) as { _ng_rollout_index: number })._ng_rollout_index),
      [0, 2],
    );
  });

  it('stops gymnast collect with a message and whole rows, and --resume then ends with every key exactly once, no hand edit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gymnast-full-'));
    const output = join(dir, 'out.jsonl');
    const args = ['collect', '--input', input, '--output', output, '--num-repeats', '4', '--seed', '5'];
    // 48 KiB: the plan (~14 KiB) fits, the 64 rollouts (~150 KiB) do not.
    const full = await underSizeLimit(48, [process.execPath, bin, ...args]);
    assert.equal(full.code, 1);
    assert.match(full.stderr, new RegExp(`^gymnast: write-failed: cannot write ${output}: .*\\(EFBIG\\); .*then rerun with --resume$`, 'm'));
    assert.doesNotMatch(full.stderr, /\n\s+at /, 'no stack trace');
    const text = readFileSync(output, 'utf8');
    assert.ok(text.endsWith('\n'), 'no cut line is left');
    const kept = lines(output).map((line) => JSON.parse(line) as Record<string, number>);
    assert.ok(kept.length > 0 && kept.length < 64, `${kept.length} rows written before the limit`);
    assert.equal(lines(join(dir, 'out_failures.jsonl')).length, 0, 'the rollouts cut short by the failure are not recorded as failures');
    assert.equal(existsSync(join(dir, 'out_run.lock')), false, 'the lock is released');
    assert.equal(existsSync(join(dir, 'out_aggregate_metrics.json')), false, 'no metrics over a partial run');

    const resumed = await run(process.execPath, [bin, ...args, '--resume']);
    assert.doesNotMatch(resumed.stderr, /repaired/, 'nothing to repair');
    const keys = lines(output)
      .map((line) => JSON.parse(line) as Record<string, number>)
      .map((row) => `${row._ng_task_index}:${row._ng_rollout_index}`);
    assert.equal(keys.length, 64);
    assert.equal(new Set(keys).size, 64, 'every key exactly once');
    assert.match(resumed.stdout, /64 rollouts in/);
  });

  it('keeps the previous aggregate metrics whole when the disk refuses the new ones, and leaves no temporary file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gymnast-full-'));
    const output = join(dir, 'out.jsonl');
    const aggregate = join(dir, 'out_aggregate_metrics.json');
    const args = ['collect', '--input', input, '--output', output, '--num-repeats', '4', '--seed', '5'];
    await run(process.execPath, [bin, ...args], { cwd: root });
    const previous = readFileSync(aggregate);
    // Nothing is left to run: the resume writes only its reports. 16 KiB takes the health summary, not
    // the aggregate (~32 KiB of per-task groups).
    assert.ok(previous.length > 16 * 1024, `the aggregate is ${previous.length} bytes`);
    const full = await underSizeLimit(16, [process.execPath, bin, ...args, '--resume']);
    assert.equal(full.code, 1);
    assert.match(full.stderr, new RegExp(`^gymnast: write-failed: cannot write ${aggregate}: .*\\(EFBIG\\)`, 'm'));
    assert.deepEqual(readFileSync(aggregate), previous, 'the previous aggregate, byte for byte');
    assert.deepEqual(readdirSync(dir).sort(), [
      'out.jsonl',
      'out_aggregate_metrics.json',
      'out_failures.jsonl',
      'out_health.json',
      'out_health.jsonl',
      'out_materialized_inputs.jsonl',
      'out_run.json',
    ]);
  });
});

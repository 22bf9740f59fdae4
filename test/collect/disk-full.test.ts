import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
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

describe('a write the disk refuses', () => {
  it('is cut back to the last complete line, and every later write is refused, even one that would fit', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'gymnast-full-')), 'rows.jsonl');
    const child = await underSizeLimit(4, [process.execPath, '--import', 'tsx', '--input-type=module', '-e', sinkScript(path)]);
    assert.equal(child.code, 0, child.stderr);
    const [first, failed, later] = JSON.parse(child.stdout) as [unknown, { kind: string; code: string; message: string }, unknown];
    assert.equal(first, 'written');
    assert.equal(failed.kind, 'write-failed');
    assert.equal(failed.code, 'EFBIG');
    assert.match(failed.message, new RegExp(`cannot write ${path}: .*\\(EFBIG\\); the rows written before it are kept whole; free space .*then rerun with --resume`));
    assert.deepEqual(later, failed, 'refused with the same error');
    assert.equal(lines(path).length, 1);
    assert.equal(statSync(path).size, 3000 + '{"pad":""}\n'.length, 'the part of the second line the OS took is gone');
  });

  it('is a typed error naming the file and the OS code (ENOSPC on /dev/full)', { skip: !existsSync('/dev/full') && 'no /dev/full' }, () => {
    const sink = new JsonlSink('/dev/full');
    assert.throws(() => sink.write({ a: 1 }), { kind: 'write-failed', code: 'ENOSPC', message: /cannot write \/dev\/full: no space left on the device \(ENOSPC\)/ });
    assert.throws(() => sink.write({ a: 2 }), { kind: 'write-failed', code: 'ENOSPC' });
  });

  it('stops the rollout sink for both files: no failure row follows a result that could not be written', { skip: !existsSync('/dev/full') && 'no /dev/full' }, async () => {
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
    const keys = lines(output).map((line) => JSON.parse(line) as Record<string, number>).map((row) => `${row._ng_task_index}:${row._ng_rollout_index}`);
    assert.equal(keys.length, 64);
    assert.equal(new Set(keys).size, 64, 'every key exactly once');
    assert.match(resumed.stdout, /64 rollouts in/);
  });
});
